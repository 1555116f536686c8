// Names and aliases: how they are cleaned, compared and deduplicated.

/** Unicode-normalized, inner whitespace collapsed, trimmed. */
export const normalizeAlias = (alias: string): string => alias.normalize("NFC").replace(/\s+/gu, " ").trim();

/** Two aliases are the same when their keys are equal: normalized and case-folded. */
export const aliasKey = (alias: string): string => normalizeAlias(alias).toLowerCase();

/** Normalizes each alias, drops empty ones and later duplicates; keeps the first spelling and the order. */
export function dedupeAliases(aliases: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const alias of aliases) {
    const normal = normalizeAlias(alias);
    const key = normal.toLowerCase();
    if (!normal || seen.has(key)) continue;
    seen.add(key);
    kept.push(normal);
  }
  return kept;
}

/** The deprecated single `character_alias` may hold several, separated by commas, semicolons or lines. */
export const splitLegacyAlias = (legacy: string): string[] => legacy.split(/[,;\n]/u);

export const mergeAliases = (aliases: readonly string[], legacy?: string | null): string[] =>
  dedupeAliases([...aliases, ...(legacy ? splitLegacyAlias(legacy) : [])]);

/** Whether `name` is the record's name or one of its aliases. */
export const answersTo = (name: string, record: { name: string; aliases: readonly string[] }): boolean => {
  const key = aliasKey(name);
  return key !== "" && (aliasKey(record.name) === key || record.aliases.some((alias) => aliasKey(alias) === key));
};
