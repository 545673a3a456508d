/**
 * The keys given, in their order, that have a value. jsonb keeps keys in its own order; responses (XML
 * above all) show the documented one on every read.
 */
export function inOrder<T extends object, K extends keyof T>(
  object: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  return Object.fromEntries(
    keys.flatMap((key) => (object[key] == null ? [] : [[key, object[key]]])),
  ) as Partial<Pick<T, K>>;
}
