import { createServer, type IncomingHttpHeaders, maxHeaderSize, type Server, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type ErrorName, statusOf } from '@paywire/contracts';
import { newRequestId, validRequestId } from '@paywire/observability';
import type Koa from 'koa';
import { single } from './http/errors.ts';
import { negotiateFormat } from './http/format.ts';
import { listenAddressUrl } from './http/links.ts';
import { render } from './http/respond.ts';
import { xmlShapes } from './xml-shapes.ts';

type Refusal = [ErrorName, string];

/** Node's HTTP parser refuses these before Koa sees a request; each still gets the interface's error. */
function refusalOf(code: string | undefined): Refusal {
  switch (code) {
    case 'HPE_INVALID_METHOD':
      return ['INVALID_HTTP_METHOD', 'the request method is not one this service serves'];
    case 'HPE_HEADER_OVERFLOW':
      return ['REQUEST_HEADER_FIELDS_TOO_LARGE', `the request headers exceed ${maxHeaderSize} bytes`];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return ['REQUEST_ENTITY_TOO_LARGE', 'the chunk extensions are too large'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['REQUEST_TIMEOUT', 'the request did not arrive in time'];
    default:
      return ['VALIDATION_GENERAL_FAILURE', 'the request is not valid HTTP/1.1'];
  }
}

/** A header of a request the parser gave up on, read from the bytes it saw (empty if absent). */
function rawHeader(raw: string, name: string): string {
  return new RegExp(`\\r\\n${name}:[ \\t]*([^\\r\\n]*)`, 'i').exec(raw)?.[1]?.trim() ?? '';
}

/** The error in the format Accept (or the body's Content-Type) asks for. */
function errorResponse(app: Koa, [name, description]: Refusal, accept: string, contentType: string) {
  const body = single(name, description);
  const format = negotiateFormat(accept, contentType);
  const { type, text } = render(format, body, xmlShapes.messages, app.context.xmlNamespace);
  return { status: statusOf(body), type: `${type}; charset=utf-8`, text };
}

/** The error written straight to a socket no response object owns; the connection then closes. */
function refuse(app: Koa, socket: Socket, refusal: Refusal, accept: string, contentType: string) {
  const { status, type, text } = errorResponse(app, refusal, accept, contentType);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: ${type}\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      `X-Request-Id: ${newRequestId()}\r\n` +
      'Connection: close\r\n\r\n' +
      text,
  );
}

const headerValue = (headers: IncomingHttpHeaders, name: string) => String(headers[name] ?? '');

/**
 * Serves the facade: the one wiring main.ts and the tests share. Besides Koa's handler it answers what
 * Node refuses itself (unknown methods such as FOO, oversized headers, malformed requests, an unknown
 * Expect) and CONNECT, which would otherwise be a bare 400, a body-less 431 or 417, or a reset. Links use
 * the listen address unless the facade was given a public base URL.
 */
export async function listenFacade(app: Koa, port: number, host: string): Promise<Server> {
  const server = createServer({ requireHostHeader: false }, app.callback()); // checkProtocol answers it
  server.keepAliveTimeout = 65_000;
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => {
    // A response already under way on this connection cannot be followed by another: just close.
    const busy = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || busy) {
      socket.destroy();
      return;
    }
    const raw = error.rawPacket?.toString('latin1') ?? '';
    refuse(app, socket, refusalOf(error.code), rawHeader(raw, 'accept'), rawHeader(raw, 'content-type'));
  });
  server.on('connect', (request, socket: Socket) => {
    refuse(
      app,
      socket,
      ['INVALID_HTTP_METHOD', 'CONNECT is not a method this service serves'],
      headerValue(request.headers, 'accept'),
      headerValue(request.headers, 'content-type'),
    );
  });
  // An Expect other than 100-continue: Node would answer a bare 417.
  server.on('checkExpectation', (request, response) => {
    const { status, type, text } = errorResponse(
      app,
      ['EXPECTATION_FAILED', 'the only expectation this service meets is 100-continue'],
      headerValue(request.headers, 'accept'),
      headerValue(request.headers, 'content-type'),
    );
    response.writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(text),
      'x-request-id': validRequestId(request.headers['x-request-id']) ?? newRequestId(),
    });
    response.end(text);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  app.context.publicBaseUrl ??= listenAddressUrl(address.address, address.port);
  return server;
}
