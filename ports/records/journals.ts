// What the application needs from a record store: journal entries and folders.
import type { JournalChunk, JournalEntry, JournalFolder, JournalListEntry, JournalShare } from "../../domain/journals.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { Listing, ReadOptions, Stored } from "../records.ts";

export interface JournalRepository extends Stored<JournalEntry> {
  /** Entries the viewer may see (public, authored, or shared): the journal permission rule in the query. Without content. */
  listVisible(campaignId: string, viewerId: string, filters: { folderId?: string }, page: PageRequest): Promise<Listing<JournalListEntry>>;
  shares(entryId: string): Promise<JournalShare[]>;
  putShare(entryId: string, share: JournalShare, at: string): Promise<void>;
  removeShare(entryId: string, userId: string): Promise<void>;
  /** Tokens of every entry of the campaign except one (the one being saved). */
  campaignTokens(campaignId: string, exceptEntryId: string | null): Promise<number>;
  replaceChunks(entryId: string, campaignId: string, chunks: JournalChunk[]): Promise<void>;
  chunks(entryId: string): Promise<JournalChunk[]>;
  moveFolderEntriesToRoot(folderId: string): Promise<number>;
  /** Entries saved before the service's tokenizer counted them (queued by migration 0019), oldest id first. */
  recountsDue(limit: number): Promise<{ id: string; content: string }[]>;
  /**
   * Stores a recount and takes the entry off the queue. The count is stored only while the entry
   * still has `content` (an edit since recounted it already); chunks by position likewise.
   */
  storeRecount(entryId: string, content: string, tokenCount: number, chunks: { position: number; text: string; token_count: number }[]): Promise<void>;
}

export interface FolderRepository {
  /** Returns false when the campaign already has a folder at that path. */
  insert(folder: JournalFolder): Promise<boolean>;
  replace(folder: JournalFolder): Promise<boolean>;
  get(id: string, options?: ReadOptions): Promise<JournalFolder | null>;
  list(campaignId: string, parentId?: string): Promise<JournalFolder[]>;
  /** Parent of each folder on the way up from `id`. */
  ancestry(id: string): Promise<Map<string, string | null>>;
  reparentChildren(folderId: string, newParentId: string | null, at: string): Promise<number>;
  delete(id: string): Promise<boolean>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    journals: JournalRepository;
    folders: FolderRepository;
  }
}

// Operations address these records by id (the campaign they belong to authorizes the call).
declare module "./owners.ts" {
  interface AddressedKinds {
    journals: JournalEntry;
    journal_folders: JournalFolder;
  }
}
