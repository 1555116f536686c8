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

