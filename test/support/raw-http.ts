import { connect } from 'node:net';
import { fromXml } from '@paywire/xml';
import { expect } from 'vitest';

/** One HTTP answer read off a socket; `body` is the error body read back (JSON, or XML's messages shape). */
export interface RawReply {
  status: number;
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: error bodies of every kind; tests assert on their fields
  body: any;
}

/**
 * Sends bytes exactly as given to the facade at baseUrl (what fetch refuses to send: unknown methods,
 * CONNECT, oversized headers, forged Host) and reads the first answer. The request should say
 * `Connection: close`; the server's answers to requests its parser refused close the connection anyway.
 */
export function rawExchange(
  baseUrl: string,
  request: string | Buffer,
  timeoutMs = 10_000,
): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(
      () => socket.destroy(new Error(`no complete answer in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const finish = () => {
      clearTimeout(timer);
      const reply = parseReply(Buffer.concat(chunks));
      if (reply) resolve(reply);
      else reject(new Error(`no HTTP answer: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const reply = parseReply(Buffer.concat(chunks));
      if (reply) {
        clearTimeout(timer);
        socket.destroy();
        resolve(reply);
      }
    });
    socket.on('end', finish);
    socket.on('error', (error) => {
      clearTimeout(timer);
      // A reset after a complete answer still counts as the answer.
      const reply = parseReply(Buffer.concat(chunks));
      if (reply) resolve(reply);
      else reject(error);
    });
    socket.write(request);
  });
}

/** The first complete answer in the bytes, or undefined while it is incomplete. */
function parseReply(bytes: Buffer): RawReply | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (headers['transfer-encoding'] === 'chunked') {
    const end = bytes.indexOf('\r\n0\r\n\r\n', headEnd);
    if (end === -1) return undefined;
    const raw = bytes.subarray(headEnd + 4, end + 2).toString('latin1');
    let text = '';
    for (let at = 0; at < raw.length; ) {
      const size = Number.parseInt(raw.slice(at, raw.indexOf('\r\n', at)), 16);
      const start = raw.indexOf('\r\n', at) + 2;
      text += raw.slice(start, start + size);
      at = start + size + 2;
    }
    return reply(statusLine, headers, Buffer.from(text, 'latin1').toString('utf8'));
  }
  if (bytes.length < headEnd + 4 + length) return undefined;
  return reply(statusLine, headers, bytes.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8'));
}

function reply(statusLine: string, headers: Record<string, string>, text: string): RawReply {
  const type = headers['content-type'] ?? '';
  let body: unknown;
  if (type.includes('json')) body = JSON.parse(text);
  else if (type.includes('xml') && /<messages[\s>]/.test(text)) {
    body = fromXml(text, { root: 'messages', repeated: ['message'] });
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text, body };
}

/** A request's bytes: request line, headers as given plus Host and Connection: close, and the body. */
export function rawRequest(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Buffer {
  const all: Record<string, string> = { host: 'localhost', connection: 'close', ...headers };
  if (body !== undefined && all['content-length'] === undefined)
    all['content-length'] = String(Buffer.byteLength(body));
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([
    Buffer.from(`${method} ${target} HTTP/1.1\r\n${head}\r\n`, 'latin1'),
    typeof body === 'string' ? Buffer.from(body, 'utf8') : (body ?? Buffer.alloc(0)),
  ]);
}

/** The interface's error body in the format asked for: JSON, or XML with the namespace on <messages>. */
export function expectErrorReply(
  reply: { status: number; text: string; body: unknown; contentType: string },
  status: number,
  errorName: string,
  format: 'json' | 'xml',
): void {
  expect(reply.status, reply.text.slice(0, 300)).toBe(status);
  if (format === 'json') expect(reply.contentType).toMatch(/^application\/json/);
  else {
    expect(reply.contentType).toMatch(/^application\/xml/);
    expect(reply.text).toMatch(/^<\?xml[^>]*\?>\s*<messages xmlns="http:\/\/ws\.plimus\.com">/);
  }
  const first = (reply.body as { message?: { errorName?: string; description?: unknown }[] })?.message?.[0];
  expect(first?.errorName, reply.text.slice(0, 300)).toBe(errorName);
  expect(typeof first?.description).toBe('string');
}
