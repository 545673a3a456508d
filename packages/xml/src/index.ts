export { toElementName, toJsonKey, type XmlShape } from './names.ts';
export { fromXml, MAX_DEPTH, MAX_ELEMENTS, XmlInputError } from './read.ts';
export { DEFAULT_NAMESPACE, type ToXmlOptions, toXml } from './write.ts';
