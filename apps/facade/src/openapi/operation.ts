import type { XmlShape } from '@paywire/xml';
import type { z } from 'zod';

/** The document's tags, in the order the reference page lists them. */
export const tags = [
  'Card transactions',
  'Vaulted shoppers',
  'Hosted payment fields',
  'Wallets',
  'Sandbox',
  'Chargebacks',
  'Notifications',
  'Account updater',
  'Fraud screening',
  'Audit trail',
  'Reporting',
  'Catalog',
  'Partners',
  'SEPA direct debit',
  'Orders',
  'Marketplace',
  'Recurring billing',
  'API description',
] as const;

/** A JSON or XML body: its component name in the document, its contract, its XML document. */
export interface Body<Schema extends z.ZodType = z.ZodType> {
  name: string;
  schema: Schema;
  shape: XmlShape;
}

/** A successful answer: a body in JSON or XML, a file of another media type, or nothing. */
export interface Answer {
  status: number;
  description: string;
  body?: Body;
  /** e.g. text/html: the answer is a page or file, not a resource in JSON or XML. */
  media?: readonly string[];
  headers?: Record<string, string>;
}

/** What the API description says of a route (http/route.ts declares it beside the handler). */
export interface Operation {
  summary: string;
  tag: (typeof tags)[number];
  description?: string;
  /** Served without credentials (before Basic auth in app.ts). */
  public?: true;
  /** The path parameters' contract: a parameter of the path not in its shape is a string. */
  params?: z.ZodObject;
  /** The query parameters' contract: each property of its shape not named like a path parameter. */
  query?: z.ZodObject;
  /** The request body; properties named like a path parameter are taken from the path instead. */
  request?: Body;
  answers: Answer[];
  /** Error statuses beyond those every operation of its kind has (document.ts, errorStatuses). */
  errors?: number[];
}

export const body = <Schema extends z.ZodType>(
  name: string,
  schema: Schema,
  shape: XmlShape,
): Body<Schema> => ({
  name,
  schema,
  shape,
});
export const ok = (description: string, answer: Body): Answer => ({ status: 200, description, body: answer });
/** 201 with no body: the new resource is where Location says. */
export const created = (location: string, description = 'Created; no body'): Answer => ({
  status: 201,
  description,
  headers: { Location: location },
});
export const noContent = (description: string): Answer => ({ status: 204, description });
export const file = (media: string | readonly string[], description: string, status = 200): Answer => ({
  status,
  description,
  media: typeof media === 'string' ? [media] : media,
});
export const scriptsAndStyles = ['text/javascript', 'text/css'];
