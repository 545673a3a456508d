import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { toJsonKey, type XmlShape } from './names.ts';

/** Bad XML from a client. The message is safe to show: it never quotes the document's content. */
export class XmlInputError extends Error {
  override readonly name = 'XmlInputError';
  /** camelCase path of the offending element, e.g. 'creditCard.cardNumber', when there is one. */
  readonly property: string | undefined;

  constructor(message: string, property?: string) {
    super(message);
    this.property = property;
  }
}

export const MAX_DEPTH = 32;
export const MAX_ELEMENTS = 10_000;

// Entities are decoded here rather than by the parser, so that only the five predefined ones and
// valid character references are ever expanded; CDATA stays verbatim.
const parser = new XMLParser({
  preserveOrder: true, // keeps text, CDATA and elements apart, so mixed content is visible
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  textNodeName: '#text',
  cdataPropName: '#cdata',
});

type XmlNode = Record<string, unknown>;

interface Reader {
  /** Element name -> JSON key, for the shape's elementNames. */
  keys: ReadonlyMap<string, string>;
  repeated: ReadonlySet<string>;
  wrapped: ReadonlyMap<string, string>;
}

/** Parses an XML request body into the JSON shape of the resource inside shape.root. */
export function fromXml(text: string, shape: XmlShape): Record<string, unknown> {
  if (typeof text !== 'string') throw new XmlInputError('The request body must be XML text');
  // A BOM or a stray newline before the declaration is harmless; tolerate it.
  const xml = text.replace(/^\uFEFF?[ \t\r\n]*/, '');
  if (xml === '') throw new XmlInputError('The request body is empty');
  if (!xml.startsWith('<')) throw new XmlInputError('The request body is not an XML document');
  checkCharacters(xml);
  scanMarkup(xml);

  let nodes: XmlNode[];
  try {
    const valid = XMLValidator.validate(xml);
    if (valid !== true) {
      throw new XmlInputError(`Malformed XML at line ${valid.err.line}, column ${valid.err.col}`);
    }
    nodes = parser.parse(xml) as XmlNode[];
  } catch (error) {
    if (error instanceof XmlInputError) throw error;
    // The library's messages may quote the document; say nothing about it.
    throw new XmlInputError('The XML document could not be parsed');
  }

  const root = nodes.flatMap(elementsOf)[0];
  if (root === undefined) throw new XmlInputError('The XML document has no root element');
  if (localName(root[0]) !== shape.root) {
    throw new XmlInputError(`The root element must be <${shape.root}>`);
  }
  const reader: Reader = {
    keys: new Map(Object.entries(shape.elementNames ?? {}).map(([key, name]) => [name, key])),
    repeated: new Set(shape.repeated ?? []),
    wrapped: new Map(Object.entries(shape.wrapped ?? {})),
  };
  const content = readElement(root[1], '', reader);
  if (typeof content === 'string') {
    if (content === '') return {};
    throw new XmlInputError(`<${shape.root}> must contain elements, not text`);
  }
  return content;
}

/** An element is read as its trimmed text when it has no child elements, else as an object. */
function readElement(nodes: XmlNode[], path: string, reader: Reader): string | Record<string, unknown> {
  const text = textOf(nodes, path);
  const children = nodes.flatMap(elementsOf);
  if (children.length === 0) return trimXml(text);
  if (trimXml(text) !== '') {
    throw new XmlInputError('Text is not allowed beside child elements', path || undefined);
  }

  const fields = new Map<string, unknown[]>();
  for (const [name, content] of children) {
    const local = localName(name);
    const key = reader.keys.get(local) ?? toJsonKey(local);
    const childPath = path === '' ? key : `${path}.${key}`;
    const itemName = reader.wrapped.get(key);
    const value =
      itemName === undefined
        ? readElement(content, childPath, reader)
        : readWrapper(content, itemName, childPath, reader);
    const values = fields.get(key);
    if (values === undefined) fields.set(key, [value]);
    else values.push(value);
  }
  // fromEntries defines own properties, so a key like '__proto__' cannot reach a prototype.
  return Object.fromEntries(
    [...fields].map(([key, values]) => [
      key,
      values.length === 1 && !reader.repeated.has(key) ? values[0] : values,
    ]),
  );
}

/** <ipn-destinations><ipn-destination>..</ipn-destination></ipn-destinations> -> an array. */
function readWrapper(nodes: XmlNode[], itemName: string, path: string, reader: Reader): unknown[] {
  const children = nodes.flatMap(elementsOf);
  if (trimXml(textOf(nodes, path)) !== '' || children.some(([name]) => localName(name) !== itemName)) {
    throw new XmlInputError(`This element may contain only <${itemName}> elements`, path);
  }
  return children.map(([, content]) => readElement(content, path, reader));
}

function elementsOf(node: XmlNode): [string, XmlNode[]][] {
  return Object.entries(node).flatMap(([name, content]): [string, XmlNode[]][] =>
    name === '#text' || name === '#cdata' || name === ':@' ? [] : [[name, content as XmlNode[]]],
  );
}

/** Concatenates an element's own text and CDATA (comments may split them). */
function textOf(nodes: XmlNode[], path: string): string {
  let text = '';
  for (const node of nodes) {
    if ('#text' in node) text += decodeReferences(String(node['#text']), path);
    if ('#cdata' in node) {
      for (const part of node['#cdata'] as XmlNode[]) text += String(part['#text'] ?? '');
    }
  }
  return text;
}

// Names are matched without their namespace prefix: <bs:amount> is <amount>.
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

const PREDEFINED = new Map([
  ['lt', '<'],
  ['gt', '>'],
  ['amp', '&'],
  ['quot', '"'],
  ['apos', "'"],
]);

/** The validator has already checked that every '&' starts a syntactically valid reference. */
function decodeReferences(text: string, path: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[^;&]+);/g, (_reference, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      if (!isXmlChar(code)) throw new XmlInputError('Invalid character reference', path || undefined);
      return String.fromCodePoint(code);
    }
    const char = PREDEFINED.get(body);
    // Without a DTD nothing else is defined, and DTDs are refused.
    if (char === undefined) throw new XmlInputError('Unknown entity reference', path || undefined);
    return char;
  });
}

function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function checkCharacters(xml: string): void {
  if (!xml.isWellFormed() || NOT_XML_CHAR.test(xml)) {
    throw new XmlInputError('The XML document contains characters that XML does not allow');
  }
}

/**
 * A linear pass over the markup before any parser sees it: refuses DTDs (so no entity
 * expansion, billion laughs or external entities), processing instructions other than the
 * leading declaration, documents too deep or too large, and a second root or text outside the
 * root (which the validator lets through and the parser silently drops). The rest of
 * well-formedness is left to the validator.
 */
function scanMarkup(xml: string): void {
  let depth = 0;
  let elements = 0;
  let from = 0;
  for (let at = xml.indexOf('<'); ; at = xml.indexOf('<', from)) {
    if (depth <= 0 && trimXml(xml.slice(from, at === -1 ? xml.length : at)) !== '') {
      throw new XmlInputError('Text is not allowed outside the root element');
    }
    if (at === -1) return;
    if (xml.startsWith('<!--', at)) {
      from = skipPast(xml, '-->', at + 4);
    } else if (xml.startsWith('<![CDATA[', at)) {
      from = skipPast(xml, ']]>', at + 9);
    } else if (xml.startsWith('<!', at)) {
      throw new XmlInputError('DOCTYPE and ENTITY declarations are not allowed');
    } else if (xml.startsWith('<?', at)) {
      if (at !== 0 || !/^<\?xml[ \t\r\n]/.test(xml)) {
        throw new XmlInputError('Processing instructions are not allowed');
      }
      from = skipPast(xml, '?>', at + 2);
    } else if (xml.startsWith('</', at)) {
      depth--;
      from = tagEnd(xml, at + 2);
    } else {
      if (depth <= 0 && elements > 0) {
        throw new XmlInputError('The XML document must have exactly one root element');
      }
      from = tagEnd(xml, at + 1);
      if (++elements > MAX_ELEMENTS) {
        throw new XmlInputError(`The XML document has more than ${MAX_ELEMENTS} elements`);
      }
      if (xml[from - 2] !== '/' && ++depth > MAX_DEPTH) {
        throw new XmlInputError(`The XML document is nested deeper than ${MAX_DEPTH} elements`);
      }
    }
  }
}

function skipPast(xml: string, terminator: string, from: number): number {
  const end = xml.indexOf(terminator, from);
  return end === -1 ? xml.length : end + terminator.length;
}

/** Index just after the '>' closing a start tag, skipping quoted attribute values. */
function tagEnd(xml: string, from: number): number {
  let quote = '';
  for (let i = from; i < xml.length; i++) {
    const char = xml[i];
    if (quote !== '') {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '>') {
      return i + 1;
    } else if (char === '<') {
      return i; // malformed; the validator will say so
    }
  }
  return xml.length;
}

function trimXml(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isXmlSpace(text.charCodeAt(start))) start++;
  while (end > start && isXmlSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function isXmlSpace(code: number): boolean {
  return code === 0x20 || code === 0x9 || code === 0xa || code === 0xd;
}
