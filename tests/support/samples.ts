// A plausible value for a field, from its JSON Schema alone: for suites that must fill the required
// fields of any operation so that the one field they vary is what the answer is about.

/** The schema's constant or first choice, else a value of its type (`text` for strings). */
export function sampleOf(schema: Record<string, any>, text: string): unknown {
  const branch = schema.anyOf ? (schema.anyOf.find((b: Record<string, any>) => b.type !== "null") ?? schema) : schema;
  if (branch.const !== undefined) return branch.const;
  if (branch.anyOf?.[0]?.const !== undefined) return branch.anyOf[0].const;
  if (branch.format === "date-time") return "2026-01-01T00:00:00Z";
  if (branch.format === "uri" || branch.format === "image-url") return "https://example.com/a.png";
  switch (branch.type) {
    case "integer":
    case "number":
      return branch.minimum ?? 1;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return text;
  }
}
