// The queries the search scenarios make of one target name (bench/search.ts times them,
// bench/explain-search.ts explains them): one definition, so both read the same statements.

export interface NameQueries {
  /** The name's first four letters. */
  prefix: string;
  /** Five letters inside the longer word, as issue 15's table has it (a five-letter word gives only four). */
  inside: string;
  /** The last vowel dropped: the prefix tiers still find it. */
  misspelled: string;
  /** Two letters of the longer word swapped: no word starts with it, only similar names find it. */
  typo: string;
}

export function nameQueries(name: string): NameQueries {
  const words = name.split(" ");
  const first = words[0]!;
  const last = words.at(-1)!;
  const longer = first.length >= last.length ? first : last;
  return {
    prefix: first.slice(0, 4),
    inside: longer.slice(1, 6).toLowerCase(),
    misspelled: name.replace(/[aeiou](?=[^aeiou]*$)/, ""),
    typo: name.replace(longer, `${longer.slice(0, 4)}${longer[5]}${longer[4]}${longer.slice(6)}`),
  };
}
