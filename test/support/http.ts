import { fromXml, type XmlShape } from '@paywire/xml';
import { expect } from 'vitest';
import { notableLogLines } from './failure-logs.ts';
import type { Stack, TestMerchant } from './stack.ts';
import { expectSchemaValid } from './xsd.ts';

export type Format = 'json' | 'xml';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, or for XML the document read back into the JSON shape (all leaves strings). */
  // biome-ignore lint/suspicious/noExplicitAny: replies of every resource; tests assert on their fields
  body: any;
}

export interface CallOptions {
  format?: Format;
  accept?: string;
  headers?: Record<string, string>;
  merchant?: TestMerchant | null;
  /** Raw body text, sent as is. */
  raw?: string;
  /** How to read an XML reply (defaults to the messages shape for errors). */
  shape?: XmlShape;
}

/** Call options acting as another merchant than the stack's own. */
export function as(merchant: TestMerchant, options: CallOptions = {}): CallOptions {
  return { ...options, merchant };
}

/**
 * Asserts the reply's status and hands the reply on. When it differs, the message shows the body and the
 * last warnings and errors the services logged: CI's output keeps only its tail, the failures' summary,
 * where a facade that could not reach core (say) would otherwise leave no trace of why.
 */
export function expectStatus(reply: Reply, status: number): Reply {
  if (reply.status !== status) {
    const logged = notableLogLines(5).map((line) => line.trim().slice(0, 400));
    expect(reply.status, [reply.text, ...logged].join('\n')).toBe(status);
  }
  return reply;
}

/** A failed call's status and first message: its error name, code and invalid property. */
export function failure(reply: Reply) {
  const [message] = reply.body.message as Array<Record<string, unknown>>;
  return {
    status: reply.status,
    errorName: message?.errorName,
    code: Number(message?.code),
    property: (message?.invalidProperty as { name?: string } | undefined)?.name,
  };
}

const messagesShape: XmlShape = { root: 'messages', repeated: ['message'] };

/** Real HTTP against the running facade, in JSON or XML. */
export function client(stack: Stack) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<Reply> {
    const format = options.format ?? 'json';
    const headers: Record<string, string> = { ...options.headers };
    const merchant = options.merchant === undefined ? stack.merchant : options.merchant;
    if (merchant) headers.authorization = merchant.authorization;
    let payload: string | undefined = options.raw;
    if (payload === undefined && body !== undefined) {
      payload = format === 'json' ? JSON.stringify(body) : String(body);
    }
    if (payload !== undefined && !headers['content-type']) {
      headers['content-type'] = format === 'json' ? 'application/json' : 'application/xml';
    }
    if (options.accept) headers.accept = options.accept;
    const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    let parsed: unknown;
    if (type.includes('json')) parsed = JSON.parse(text);
    else if (type.includes('xml')) {
      // Every XML answer must be what a schema-bound client of the original reads (docs/xml-schemas.md).
      expectSchemaValid(text);
      const root = /<([a-z-]+)[\s>]/.exec(text.replace(/^<\?xml[^>]*\?>/, ''))?.[1];
      const shape =
        options.shape && options.shape.root === root
          ? options.shape
          : messagesShape.root === root
            ? messagesShape
            : { root: root ?? '' };
      parsed = fromXml(text, shape);
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }
  return {
    call,
    get: (path: string, options?: CallOptions) => call('GET', path, undefined, options),
    post: (path: string, body?: unknown, options?: CallOptions) => call('POST', path, body, options),
    put: (path: string, body?: unknown, options?: CallOptions) => call('PUT', path, body, options),
    delete: (path: string, options?: CallOptions) => call('DELETE', path, undefined, options),
  };
}

/** A direct card sale body with the approving sandbox VISA test card. */
export function saleBody(overrides: Record<string, unknown> = {}) {
  return {
    cardTransactionType: 'AUTH_CAPTURE',
    amount: 25.5,
    currency: 'USD',
    softDescriptor: 'PAYWIRE TEST',
    cardHolderInfo: { firstName: 'Ada', lastName: 'Lovelace', zip: '02139' },
    creditCard: {
      cardNumber: '4263982640269299',
      securityCode: '837',
      expirationMonth: '02',
      expirationYear: '2031',
    },
    ...overrides,
  };
}

/** An XML document of the interface: the namespace on the root, kebab-case elements. */
export function xmlDocument(root: string, fields: Record<string, unknown>): string {
  const name = (key: string) => key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const render = (object: Record<string, unknown>): string =>
    Object.entries(object)
      .map(([key, value]) => {
        const content =
          typeof value === 'object' && value !== null
            ? render(value as Record<string, unknown>)
            : String(value);
        return `<${name(key)}>${content}</${name(key)}>`;
      })
      .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://ws.plimus.com">${render(fields)}</${root}>`;
}
