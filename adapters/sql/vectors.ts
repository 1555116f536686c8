// Nearest passages by dense vector, for Ask's retriever. Two ways, chosen once per process: pgvector
// when the PostgreSQL server has the extension (the search runs in SQL, filtered by permission in
// its WHERE clause), otherwise in the application (each campaign's vectors kept in memory, refreshed
// by what was written since, and the passages the asker may not read left out before scoring).
import type { SqlExecutor } from "./database.ts";

export type VectorSearch = "pgvector" | "application";

const EMBEDDING_V_EXISTS = `select 1 from information_schema.columns where table_name = 'ask_passages' and column_name = 'embedding_v'`;

/**
 * Whether this server can rank vectors itself: the extension is installed or can be created, and
 * ask_passages has its vector column (a generated copy of `embedding`, so every write path stays
 * the same). Any failure (not installed, no privilege) means the application ranks instead.
 */
export async function detectPgvector(db: SqlExecutor, backend: string | undefined): Promise<boolean> {
  if (backend !== "postgres") return false; // PGlite here ships no vector extension
  try {
    const [row] = await db.query(
      `select exists (select 1 from pg_available_extensions where name = 'vector') as available,
              exists (select 1 from pg_extension where extname = 'vector') as installed`,
    );
    if (!row?.available) return false;
    if (!row.installed || !(await db.query(EMBEDDING_V_EXISTS)).length)
      // One statement, one transaction: the lock makes processes starting together wait for the
      // first (a second CREATE EXTENSION IF NOT EXISTS can fail on the catalog's unique index). The
      // column is checked first because ALTER TABLE locks the table even when it is already there.
      await db.query(
        `do $$ begin
           perform pg_advisory_xact_lock(hashtext('cms: ask_passages.embedding_v'));
           create extension if not exists vector;
           if not exists (${EMBEDDING_V_EXISTS}) then
             alter table ask_passages add column embedding_v vector generated always as (embedding::vector) stored;
           end if;
         end $$`,
      );
    return true;
  } catch {
    return false;
  }
}

/** Who may read what: the same rule as the lexical query's `blocked` set, as a predicate on `p`. */
const READABLE = `not (p.kind = 'journal' and $2::text is not null
                       and not coalesce(p.is_public or p.author_id = $2::text or $2::text = any(p.readers), false))
                  and not ($3::text[] is not null and (coalesce(p.session_id = any($3::text[]), false) or (p.kind = 'beat' and p.session_ids && $3::text[])))`;

export interface NearestQuery {
  campaignId: string;
  /** Null: every journal entry; otherwise only what this user may read. */
  viewer: string | null;
  /** Sessions after `as_of_session`; null when not asked. */
  blockedSessions: string[] | null;
  model: string;
  vector: number[];
  limit: number;
}

export interface VectorIndex {
  /** Passage ids, nearest first; passages the asker may not read are never scored. */
  nearest(query: NearestQuery): Promise<string[]>;
}

export function pgvectorIndex(db: SqlExecutor): VectorIndex {
  return {
    async nearest(q) {
      // Exact search over the campaign's passages (cosine distance); no ANN index, so the permission
      // filter can never shrink the result as a post-filter on an approximate index would.
      const rows = await db.query(
        `select p.id from ask_passages p
         where p.campaign_id = $1 and p.embedding_model = $4 and p.embedding_v is not null and ${READABLE}
         order by p.embedding_v <=> $5::real[]::vector, p.id limit $6`,
        [q.campaignId, q.viewer, q.blockedSessions, q.model, q.vector, q.limit],
      );
      return rows.map((row) => String(row.id));
    },
  };
}

/** A campaign's vectors as this process last read them, quantized to bytes (a quarter of float32). */
interface CampaignVectors {
  model: string;
  seq: number;
  ids: Map<string, number>;
  /** Slot i: ids[i], its bytes at data[i * dimensions…] and its scale. */
  slotIds: string[];
  data: Int8Array;
  scales: Float32Array;
  dimensions: number;
  refreshing: Promise<void> | null;
}

export function applicationIndex(db: SqlExecutor): VectorIndex {
  const campaigns = new Map<string, CampaignVectors>();

  const put = (c: CampaignVectors, id: string, vector: number[]) => {
    if (vector.length !== c.dimensions) return;
    let slot = c.ids.get(id);
    if (slot === undefined) {
      slot = c.slotIds.length;
      if ((slot + 1) * c.dimensions > c.data.length) {
        const grown = new Int8Array(Math.max(c.data.length * 2, 64 * c.dimensions));
        grown.set(c.data);
        c.data = grown;
        const scales = new Float32Array(grown.length / c.dimensions);
        scales.set(c.scales);
        c.scales = scales;
      }
      c.slotIds.push(id);
    }
    c.slotIds[slot] = id;
    c.ids.set(id, slot);
    let max = 0;
    for (const v of vector) max = Math.max(max, Math.abs(v));
    const scale = max / 127 || 1;
    for (let i = 0; i < c.dimensions; i++) c.data[slot * c.dimensions + i] = Math.round(vector[i]! / scale);
    c.scales[slot] = scale;
  };

  async function refresh(campaignId: string, model: string, dimensions: number): Promise<CampaignVectors> {
    let c = campaigns.get(campaignId);
    if (!c || c.model !== model || c.dimensions !== dimensions) {
      c = { model, seq: 0, ids: new Map(), slotIds: [], data: new Int8Array(0), scales: new Float32Array(0), dimensions, refreshing: null };
      campaigns.set(campaignId, c);
    }
    const current = c;
    // One refresh at a time per campaign; concurrent askers wait for it.
    current.refreshing ??= (async () => {
      const [count] = await db.query(`select count(*)::int as n from ask_passages where campaign_id = $1 and embedded_seq is not null`, [campaignId]);
      // Deleted passages stay in memory until the count says too many are gone: then read all again.
      if (current.ids.size > Number(count!.n) * 1.25 + 16) {
        current.ids.clear();
        current.slotIds.length = 0;
        current.seq = 0;
      }
      const rows = await db.query(
        `select id, embedding, embedded_seq from ask_passages where campaign_id = $1 and embedding_model = $2 and embedded_seq > $3 order by embedded_seq`,
        [campaignId, model, current.seq],
      );
      for (const row of rows) {
        put(current, String(row.id), (row.embedding as number[]).map(Number));
        current.seq = Math.max(current.seq, Number(row.embedded_seq));
      }
    })().finally(() => {
      current.refreshing = null;
    });
    await current.refreshing;
    return current;
  }

  return {
    async nearest(q) {
      const c = await refresh(q.campaignId, q.model, q.vector.length);
      // Passages the asker may not read are excluded before any vector is scored.
      const blocked = new Set(
        (
          await db.query(
            `select p.id from ask_passages p where p.campaign_id = $1 and (($2::text is not null and p.kind = 'journal') or ($3::text[] is not null and p.session_ids && $3::text[]) or ($3::text[] is not null and p.session_id = any($3::text[])))
               and not (${READABLE})`,
            [q.campaignId, q.viewer, q.blockedSessions],
          )
        ).map((row) => String(row.id)),
      );
      const query = Float32Array.from(q.vector);
      const best: { id: string; score: number }[] = [];
      for (let slot = 0; slot < c.slotIds.length; slot++) {
        const id = c.slotIds[slot]!;
        if (c.ids.get(id) !== slot || blocked.has(id)) continue;
        let dot = 0;
        const base = slot * c.dimensions;
        for (let i = 0; i < c.dimensions; i++) dot += query[i]! * c.data[base + i]!;
        const score = dot * c.scales[slot]!;
        if (best.length < q.limit || score > best[best.length - 1]!.score) {
          best.push({ id, score });
          best.sort((x, y) => y.score - x.score || Number(x.id) - Number(y.id));
          if (best.length > q.limit) best.pop();
        }
      }
      return best.map((x) => x.id);
    },
  };
}
