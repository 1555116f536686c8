// What the application needs from a record store: the search index.


export interface SearchDocument {
  campaign_id: string;
  /** Journal entries only: who may see the hit (the journal permission rule, applied in the query). */
  visibility?: { author_id: string; is_public: boolean; shared_with: string[] };
  doc_type: string;
  doc_id: string;
  title: string;
  body: string;
  facets?: Record<string, unknown>;
}

export interface SearchHit {
  doc_type: string;
  doc_id: string;
  title: string;
  snippet: string;
  score: number;
}

export interface SearchIndex {
  upsert(document: SearchDocument, at: string): Promise<void>;
  remove(docType: string, docId: string): Promise<void>;
  removeByFacet(docType: string, facet: string, value: string): Promise<void>;
  /** Ranked hits per document type, at most `perType` each; full text first, trigram similarity for misspellings. */
  search(campaignId: string, query: string, docTypes: string[], perType: number, viewerId: string): Promise<Map<string, SearchHit[]>>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    search: SearchIndex;
  }
}
