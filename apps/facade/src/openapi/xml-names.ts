import { toElementName, type XmlShape } from '@paywire/xml';

export type JsonSchema = { [keyword: string]: unknown };

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Adds OpenAPI's `xml` keyword to a JSON Schema the way packages/xml writes the resource: the root element,
 * every property as its kebab-case element, arrays as repeated elements of the property's name, or, for
 * the shape's wrapped keys, a wrapper element around items of the shape's item name. Mutates `schema`.
 */
export function addXmlNames(schema: JsonSchema, shape: XmlShape, namespace: string): JsonSchema {
  schema.xml = { name: shape.root, ...(namespace ? { namespace } : {}) };
  nameProperties(schema, shape);
  return schema;
}

function nameProperties(schema: JsonSchema, shape: XmlShape, parentKey = ''): void {
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches))
      for (const branch of branches) if (isSchema(branch)) nameProperties(branch, shape, parentKey);
  }
  if (isSchema(schema.items)) nameProperties(schema.items, shape, parentKey);
  if (!isSchema(schema.properties)) return;
  const properties = inSequence(schema.properties, shape.sequences?.[parentKey]);
  schema.properties = properties;
  for (const [key, property] of Object.entries(properties)) {
    if (!isSchema(property)) continue;
    if (shape.omitted?.includes(key)) {
      property.description = [property.description, 'JSON only: the XML document has no element for it.']
        .filter(Boolean)
        .join(' ');
    }
    const name = shape.elementNames?.[key] ?? toElementName(key);
    const itemName = shape.wrapped?.[key];
    if (property.type === 'array' && isSchema(property.items)) {
      if (itemName === undefined) {
        property.items.xml = { name }; // <card-info>..</card-info><card-info>..</card-info>
      } else {
        property.xml = { name, wrapped: true };
        property.items.xml = { name: itemName };
      }
    } else {
      property.xml = { name };
    }
    nameProperties(property, shape, key);
  }
}

/** Properties in the XML's element order (the shape's sequence, the rest after), as packages/xml writes them. */
function inSequence(properties: JsonSchema, sequence: readonly string[] | undefined): JsonSchema {
  if (sequence === undefined) return properties;
  const rank = (key: string) => {
    const index = sequence.indexOf(key);
    return index === -1 ? sequence.length : index;
  };
  return Object.fromEntries(Object.entries(properties).sort(([a], [b]) => rank(a) - rank(b)));
}
