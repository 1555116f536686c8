// A stop-gap Retriever over the cross-type search documents, until the Ask index (issue 11's
// retrieval half) replaces it: full text with any of the question's words, journal visibility and
// `as_of_session` applied inside the query. Transcript passages get their utterance range from the
// stored utterances.
import { questionTerms } from "../../domain/ask.ts";
import type { Passage, PassageKind, Retriever } from "../../ports/retrieval.ts";
import type { SqlExecutor } from "./database.ts";

const KIND_OF: Record<string, PassageKind> = {
  characters: "character",
  factions: "faction",
  locations: "location",
  items: "item",
  beats: "beat",
  moments: "moment",
  sessions: "session",
  quests: "quest",
  journals: "journal",
  transcript: "transcript",
};

const PASSAGE_CHARS = 1500;

export function interimRetriever(db: SqlExecutor): Retriever {
  return {
    async retrieve(query) {
      const words = [...questionTerms(query.text)].map((w) => w.replace(/[^\p{L}\p{N}]/gu, "")).filter((w) => w.length > 1).slice(0, 24);
      if (!words.length) return [];
      const tsquery = words.map((w) => `${w}:*`).join(" | ");
      const params: unknown[] = [query.campaignId, tsquery, query.text, query.limit, Object.keys(KIND_OF)];
      let journals = "";
      if ("readableBy" in query.journals) {
        params.push(query.journals.readableBy);
        journals = `and (not (d.facets ? 'visibility') or (d.facets->'visibility'->>'is_public')::boolean
                    or d.facets->'visibility'->>'author_id' = $${params.length} or d.facets->'visibility'->'shared_with' ? $${params.length})`;
      }
      let asOf = "";
      if (query.asOfSessionId) {
        params.push(query.asOfSessionId);
        const cut = `(select session_date from sessions where id = $${params.length})`;
        asOf = `and (d.doc_type not in ('sessions', 'transcript', 'moments') or coalesce(
                  (select s.session_date from sessions s where s.id = coalesce(d.facets->>'session_id', case when d.doc_type = 'sessions' then d.doc_id end)), '-infinity'::timestamptz) <= ${cut})
                and (d.doc_type <> 'beats' or not exists (
                  select 1 from beats b join sessions s on b.game_session_ids ? s.id where b.id = d.doc_id and s.session_date > ${cut}))`;
      }
      const rows = await db.query<Record<string, any>>(
        `select d.doc_type, d.doc_id, d.title, d.body, d.facets,
                ts_rank_cd(d.search_vector, q.query) + 0.3 * ts_rank(d.search_vector, websearch_to_tsquery('english', $3)) as score
         from search_documents d, (select to_tsquery('simple', $2) || to_tsquery('english', $2) as query) q
         where d.campaign_id = $1 and d.doc_type = any ($5::text[]) and d.search_vector @@ q.query ${journals} ${asOf}
         order by score desc, d.doc_id limit $4`,
        params,
      );
      const sessionIds = [...new Set(rows.map((r) => (r.doc_type === "sessions" ? r.doc_id : r.facets?.session_id)).filter(Boolean))];
      const numbers = new Map<string, number>();
      if (sessionIds.length) {
        const numbered = await db.query<{ id: string; n: number }>(
          `select id, n from (select id, row_number() over (order by session_date, created_at, id)::int as n from sessions where campaign_id = $1) s where id = any ($2::text[])`,
          [query.campaignId, sessionIds],
        );
        for (const row of numbered) numbers.set(row.id, Number(row.n));
      }
      const passages: Passage[] = [];
      for (const row of rows) {
        const kind = KIND_OF[row.doc_type]!;
        const sessionId: string | null = row.doc_type === "sessions" ? row.doc_id : (row.facets?.session_id ?? null);
        const passage: Passage = {
          kind,
          sourceId: kind === "transcript" ? sessionId! : row.doc_id,
          title: row.title,
          text: String(row.body).slice(0, PASSAGE_CHARS) || row.title,
          sessionId,
          sessionNumber: sessionId ? (numbers.get(sessionId) ?? null) : null,
          score: Number(row.score),
        };
        if (kind === "transcript" && sessionId) {
          const span = await db.query<{ first: number; last: number; start: number; end: number; speakers: string[] }>(
            `select min(position)::int as first, max(position)::int as last, min(start_s) as start, max(end_s) as end,
                    coalesce(array_agg(distinct speaker_label), '{}') as speakers
             from transcript_utterances where session_id = $1 and start_s >= $2 and end_s <= $3`,
            [sessionId, Number(row.facets?.start ?? 0), Number(row.facets?.end ?? 0)],
          );
          const s = span[0];
          if (s && s.first !== null)
            passage.transcript = { session_id: sessionId, utterance_start: Number(s.first), utterance_end: Number(s.last), start: Number(s.start), end: Number(s.end), speakers: [...s.speakers].sort() };
        }
        passages.push(passage);
      }
      return passages;
    },
  };
}
