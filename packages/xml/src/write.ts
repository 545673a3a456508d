import { toElementName, type XmlShape } from './names.ts';

export const DEFAULT_NAMESPACE = 'http://ws.plimus.com';

export interface ToXmlOptions {
  /** Written as xmlns on the root; default 'http://ws.plimus.com'; '' writes no xmlns. */
  namespace?: string;
  /**
   * Renders a number, e.g. an amount with its currency's decimals; default String(value).
   * `parent` is the object holding `key` (for an array of numbers, the object holding the array).
   */
  formatNumber?: (key: string, value: number, parent: Record<string, unknown>) => string;
}

interface Writer {
  names: ReadonlyMap<string, string>;
  wrapped: ReadonlyMap<string, string>;
  upperCase: ReadonlySet<string>;
  lowerCase: ReadonlySet<string>;
  decimals: ReadonlyMap<string, number>;
  /** Parent key -> (key -> rank in the schema's sequence). */
  sequences: ReadonlyMap<string, ReadonlyMap<string, number>>;
  omitted: ReadonlySet<string>;
  required: ReadonlyMap<string, readonly string[]>;
  formatNumber: NonNullable<ToXmlOptions['formatNumber']>;
}

/** A shape's lookups, built once per shape object (shapes are module constants). */
const compiled = new WeakMap<XmlShape, Omit<Writer, 'formatNumber'>>();

function compile(shape: XmlShape): Omit<Writer, 'formatNumber'> {
  let lookups = compiled.get(shape);
  if (lookups === undefined) {
    lookups = {
      names: new Map(Object.entries(shape.elementNames ?? {})),
      wrapped: new Map(Object.entries(shape.wrapped ?? {})),
      upperCase: new Set(shape.upperCaseValues ?? []),
      lowerCase: new Set(shape.lowerCaseValues ?? []),
      decimals: new Map(Object.entries(shape.decimals ?? {})),
      sequences: new Map(
        Object.entries(shape.sequences ?? {}).map(([key, order]) => [
          key,
          new Map(order.map((child, rank) => [child, rank])),
        ]),
      ),
      omitted: new Set(shape.omitted ?? []),
      required: new Map(Object.entries(shape.required ?? {})),
    };
    compiled.set(shape, lookups);
  }
  return lookups;
}

/**
 * Renders a JSON-shaped object as an XML document. Elements follow the shape's sequences, else key
 * order; null and undefined are omitted; arrays become repeated elements unless the shape wraps them.
 * Values that JSON could not carry either (NaN, functions, class instances, nested arrays) are a
 * TypeError: they are bugs in the caller, never client input.
 */
export function toXml(value: Record<string, unknown>, shape: XmlShape, options: ToXmlOptions = {}): string {
  const writer: Writer = {
    ...compile(shape),
    formatNumber: options.formatNumber ?? ((_key, number) => String(number)),
  };
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const xmlns = namespace === '' ? '' : ` xmlns="${escapeXml(namespace)}"`;
  if (!isPlainObject(value)) throw new TypeError('toXml expects a plain object');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(shape.root + xmlns, shape.root, writeFields(value, '', writer))}`;
}

function writeFields(object: Record<string, unknown>, parentKey: string, writer: Writer): string {
  let out = '';
  const required = writer.required.get(parentKey);
  const complete =
    required?.some((key) => object[key] === undefined || object[key] === null) === true
      ? { ...Object.fromEntries(required.map((key) => [key, ''])), ...withoutNulls(object) }
      : object;
  for (const [key, value] of inSequence(complete, writer.sequences.get(parentKey))) {
    if (value === undefined || value === null || writer.omitted.has(key)) continue;
    const name = writer.names.get(key) ?? toElementName(key);
    const itemName = writer.wrapped.get(key);
    if (itemName !== undefined) {
      if (!Array.isArray(value)) throw new TypeError(`${key} must be an array`);
      out += element(name, name, writeItems(itemName, key, value, object, writer));
    } else if (Array.isArray(value)) {
      out += writeItems(name, key, value, object, writer);
    } else {
      out += writeValue(name, key, value, object, writer);
    }
  }
  return out;
}

function withoutNulls(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).filter(([, value]) => value !== undefined && value !== null),
  );
}

/** The object's entries in its schema sequence's order; keys it lacks follow, in key order (sort is stable). */
function inSequence(
  object: Record<string, unknown>,
  sequence: ReadonlyMap<string, number> | undefined,
): Array<[string, unknown]> {
  const entries = Object.entries(object);
  if (sequence === undefined) return entries;
  const rank = (key: string) => sequence.get(key) ?? sequence.size;
  return entries.sort(([a], [b]) => rank(a) - rank(b));
}

function writeItems(
  name: string,
  key: string,
  items: unknown[],
  parent: Record<string, unknown>,
  writer: Writer,
): string {
  let out = '';
  for (const item of items) {
    if (item === undefined || item === null) continue;
    // <a>1</a><a>2</a> can hold a list, not a list of lists: refuse rather than flatten.
    if (Array.isArray(item)) throw new TypeError(`${key} contains a nested array`);
    out += writeValue(name, key, item, parent, writer);
  }
  return out;
}

function writeValue(
  name: string,
  key: string,
  value: unknown,
  parent: Record<string, unknown>,
  writer: Writer,
): string {
  if (isPlainObject(value)) return element(name, name, writeFields(value, key, writer));
  return element(name, name, escapeXml(leafText(key, value, parent, writer)));
}

function leafText(key: string, value: unknown, parent: Record<string, unknown>, writer: Writer): string {
  switch (typeof value) {
    case 'string':
      if (writer.upperCase.has(key)) return value.toUpperCase();
      return writer.lowerCase.has(key) ? value.toLowerCase() : value;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number': {
      if (!Number.isFinite(value)) throw new TypeError(`${key} is not a finite number`);
      const digits = writer.decimals.get(key);
      return digits === undefined ? writer.formatNumber(key, value, parent) : value.toFixed(digits);
    }
    default:
      throw new TypeError(`${key} has a value of type ${typeof value}, which has no XML form`);
  }
}

function element(open: string, name: string, content: string): string {
  return content === '' ? `<${open}/>` : `<${open}>${content}</${name}>`;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;', // a literal CR would be normalised away by the reader's XML parser
};

// Characters XML 1.0 cannot carry at all, not even as references.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Escapes text or an attribute value; characters XML cannot hold become U+FFFD. */
function escapeXml(text: string): string {
  return text
    .toWellFormed()
    .replace(NOT_XML_CHAR, '\uFFFD')
    .replace(/[&<>"'\r]/g, (char) => ESCAPES[char] ?? char);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
