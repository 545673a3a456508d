/**
 * How JSON names map to XML element names, and the per-resource facts the mapping cannot guess.
 */

/** Describes one resource's XML document beyond the plain camelCase <-> kebab-case rule. */
export interface XmlShape {
  /** Root element name, e.g. 'card-transaction'. */
  root: string;
  /** Keys whose arrays are repeated elements named kebab(key); when reading, always arrays. */
  repeated?: readonly string[];
  /** Key -> item element: `{ipnDestinations: [..]}` <-> `<ipn-destinations><ipn-destination>..`. */
  wrapped?: Readonly<Record<string, string>>;
  /**
   * Keys whose element name the camelCase rule cannot give, both ways: the original writes
   * `level3Data` as `<level-3-data>` (a digit starts a segment, which the kebab rule never does).
   */
  elementNames?: Readonly<Record<string, string>>;
  /** Keys whose string values are upper-cased when writing ('success' -> 'SUCCESS'). */
  upperCaseValues?: readonly string[];
  /** Keys whose string values are lower-cased when writing: a schema enumeration in lower case ('INITIAL' -> 'initial'). */
  lowerCaseValues?: readonly string[];
  /**
   * Keys whose numbers are written with exactly this many fraction digits, at any depth, ahead of the
   * caller's formatNumber: money of a resource whose currency is fixed (`{itemSubTotal: 2}` -> `10.00`).
   */
  decimals?: Readonly<Record<string, number>>;
  /**
   * Element order, as the original's XSDs give each type's `xs:sequence` (schema-bound clients such as
   * .NET's XmlSerializer read by sequence): the JSON key holding an object (`''` for the root, the array's
   * key for its items) -> that object's keys in schema order. Keys a sequence does not list are written
   * after the listed ones, in key order; objects with no sequence keep their key order.
   */
  sequences?: Readonly<Record<string, readonly string[]>>;
  /**
   * Elements the schema requires that the JSON may leave out (`messageValue` of an error that does not
   * echo the value): parent key as in `sequences` -> keys written as empty elements when absent.
   */
  required?: Readonly<Record<string, readonly string[]>>;
  /** Keys the schema has no element for: written in JSON, left out of the XML document, at any depth. */
  omitted?: readonly string[];
}

// A JSON key we can write: starts lower-case, letters and digits only (address1, ibanFirstFour).
const CAMEL_NAME = /^[a-z][a-zA-Z0-9]*$/;
// Exactly the image of CAMEL_NAME under toElementName, so the two functions invert each other.
const KEBAB_NAME = /^[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*$/;

/** cardHolderInfo -> card-holder-info, address1 -> address1. Throws for keys with no such name. */
export function toElementName(key: string): string {
  if (!CAMEL_NAME.test(key)) {
    // A programming error in the caller (keys come from our own response objects), not bad input.
    throw new TypeError(`Key ${JSON.stringify(key.slice(0, 40))} cannot be written as an XML element name`);
  }
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/**
 * card-holder-info -> cardHolderInfo. A name that is not the kebab-case of a camelCase key
 * (card_number, Card-Number, address-1) is returned unchanged, so the schema downstream reports
 * it as an unknown property under the name the client wrote.
 */
export function toJsonKey(elementName: string): string {
  if (!KEBAB_NAME.test(elementName)) return elementName;
  return elementName.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}
