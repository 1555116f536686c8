// Whole-campaign export and import: the campaign's records as plain rows, section by section.

/** One record as stored: column name → JSON value (timestamps as ISO strings, bytes as "\\x…" hex). */
export type PortableRow = Record<string, unknown>;

export interface ExportOptions {
  /** Only what this user may read (a player's export); null: everything (manage access). */
  viewerId: string | null;
}

export interface PortableBatch {
  section: string;
  rows: PortableRow[];
}

/** A section of an import, in the order it must be written; `selfRefs` are set after every row exists. */
export interface ImportSection {
  section: string;
  rows: PortableRow[];
}

export interface ImportProblem {
  /** e.g. records.characters[3].character_name */
  at: string;
  message: string;
}

export interface PortabilityStore {
  /** The export's sections, in order. */
  readonly sections: readonly string[];
  /**
   * The campaign's rows, section by section in batches, all read from one consistent snapshot
   * (repeatable read) held open while the caller iterates; stopping early releases it.
   */
  read(campaignId: string, options: ExportOptions): AsyncIterable<PortableBatch>;
  /** The first row that would not fit its table (unknown section, missing or mistyped column), or null. */
  check(sections: ImportSection[]): Promise<ImportProblem | null>;
  /**
   * Writes the (already remapped and checked) rows in one transaction: all or nothing. Journal
   * entries' chunks are not in the file (they are derived): the caller makes them, written after the entries.
   */
  write(sections: ImportSection[], journalChunks?: ImportedJournalChunk[]): Promise<void>;
  /** Which of these users exist. */
  existingUsers(ids: string[]): Promise<Set<string>>;
}

/** A chunk of an imported journal entry (its text, as a save would have cut and counted it). */
export interface ImportedJournalChunk {
  entry_id: string;
  campaign_id: string;
  position: number;
  text: string;
  token_count: number;
}
