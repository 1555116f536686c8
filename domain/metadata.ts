// Free-form metadata of beats and moments.

/** PATCH merges metadata keys; a key set to null is removed. */
export function mergeMetadata(current: Record<string, unknown> | null, patch: Record<string, unknown> | null): Record<string, unknown> | null {
  if (patch === null) return null;
  // A Map and Object.fromEntries keep keys such as "__proto__" as plain data, never as a prototype.
  const merged = new Map(Object.entries(current ?? {}));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  return Object.fromEntries(merged);
}

/** The keys of an object written in code (a defaults record), typed: it has no others at run time. */
export const keysOf = <T extends object>(record: T) => Object.keys(record) as (keyof T & string)[];

/**
 * A copy of `record` with each of `keys` that `fields` sets (anything but undefined) taken from
 * `fields`: how a create or a partial update applies the fields a client sent. Typed by the record,
 * so a field's type cannot drift from the record's.
 */
export function withFields<T extends object, K extends keyof T>(record: T, fields: { [P in K]?: T[P] }, keys: readonly K[]): T {
  const next = { ...record };
  for (const key of keys) {
    const value = fields[key];
    if (value !== undefined) next[key] = value;
  }
  return next;
}
