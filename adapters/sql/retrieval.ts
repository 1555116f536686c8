// Ask's retrieval on SQL (PostgreSQL and PGlite): the index the import and the reindex write, and
// the retriever. Ranking: BM25 over the inverted index (ask_terms, weighted by field), the
// permission and spoiler filters applied to the candidates before anything is scored, then boosts
// for the entities and sessions the question names, and dense vectors fused by reciprocal rank when
// an embedder is configured.
import { reciprocalRankFusion, sessionHints } from "../../domain/retrieval.ts";
import type { Embedder } from "../../ports/ai.ts";
import type { AskIndexRepository } from "../../ports/records.ts";
import type { Passage, PassageKind, RetrievalQuery, Retriever } from "../../ports/retrieval.ts";
import type { Row, SqlExecutor } from "./database.ts";
import { applicationIndex, detectPgvector, pgvectorIndex, type VectorIndex, type VectorSearch } from "./vectors.ts";
import type { SqlRepositories } from "./records.ts";
import { listFromArrays, PackedCache, packedRow, scoreLists, termWeight, topCandidates, type PostingList } from "./packed.ts";
import { isLockTimeout, str } from "./rows.ts";

/** Transcript windows: utterances per window and the step between window starts (windows overlap). */
export const WINDOW = { size: 20, stride: 10 };

const INDEXERS: [string, string][] = [
  ["characters", "ask_index_character"],
  ["entities", "ask_index_entity"],
  ["sessions", "ask_index_session"],
  ["beats", "ask_index_beat"],
  ["moments", "ask_index_moment"],
  ["hero_awards", "ask_index_hero_award"],
  ["recap_entries", "ask_index_recap_entry"],
  ["quests", "ask_index_quest"],
  ["journal_entries", "ask_index_journal"],
];

export async function indexTranscript(db: SqlExecutor, sessionId: string, window = WINDOW): Promise<number> {
  await db.query(`delete from ask_passages where kind = 'transcript' and source_id = $1`, [sessionId]);
  // Windows start every `stride` utterances; the last one reaches the end. The title stays empty:
  // the session's current title is read with the passage, so a renamed session needs no reindex.
  const rows = await db.query(
    `with n as (select count(*)::int as n from transcript_utterances where session_id = $1),
          w as (select k, k * $3::int as lo, k * $3::int + $2::int - 1 as hi
                from n, generate_series(0, ceil(greatest(n.n - $2::int, 0)::numeric / $3::int)::int) k where n.n > 0)
     insert into ask_passages (campaign_id, kind, source_id, position, title, body, session_id, session_ids,
                               utterance_start, utterance_end, start_s, end_s, speakers)
     select s.campaign_id, 'transcript', s.id, w.k, '',
            string_agg(u.speaker_label || ': ' || u.text, E'\\n' order by u.position), s.id, array[s.id],
            min(u.position), max(u.position), min(u.start_s), max(u.end_s), array_agg(distinct u.speaker_label)
     from w join transcript_utterances u on u.session_id = $1 and u.position between w.lo and w.hi
     join sessions s on s.id = $1
     group by s.campaign_id, s.id, w.k
     returning id`,
    [sessionId, window.size, window.stride],
  );
  // The running counts of migration 0018 gain a row per word each import: folded here.
  await db.query(`select ask_counts_compact(campaign_id) from sessions where id = $1`, [sessionId]);
  return rows.length;
}

/**
 * The windows of several transcripts in one statement (an import): the same windows as
 * `indexTranscript` for each, but the statement-level triggers behind `ask_passages` run once.
 */
export async function indexTranscripts(db: SqlExecutor, sessionIds: readonly string[], window = WINDOW): Promise<number> {
  if (!sessionIds.length) return 0;
  const ids = JSON.stringify(sessionIds);
  await db.query(`delete from ask_passages where kind = 'transcript' and source_id in (select jsonb_array_elements_text($1::text::jsonb))`, [ids]);
  const rows = await db.query(
    `with n as (select u.session_id, count(*)::int as n from transcript_utterances u
                where u.session_id in (select jsonb_array_elements_text($1::text::jsonb)) group by u.session_id),
          w as (select n.session_id, k, k * $3::int as lo, k * $3::int + $2::int - 1 as hi
                from n, generate_series(0, ceil(greatest(n.n - $2::int, 0)::numeric / $3::int)::int) k)
     insert into ask_passages (campaign_id, kind, source_id, position, title, body, session_id, session_ids,
                               utterance_start, utterance_end, start_s, end_s, speakers)
     select s.campaign_id, 'transcript', s.id, w.k, '',
            string_agg(u.speaker_label || ': ' || u.text, E'\\n' order by u.position), s.id, array[s.id],
            min(u.position), max(u.position), min(u.start_s), max(u.end_s), array_agg(distinct u.speaker_label)
     from w join transcript_utterances u on u.session_id = w.session_id and u.position between w.lo and w.hi
     join sessions s on s.id = w.session_id
     group by s.campaign_id, s.id, w.k
     returning id`,
    [ids, window.size, window.stride],
  );
  await db.query(`select ask_counts_compact(c) from (select distinct campaign_id as c from sessions where id in (select jsonb_array_elements_text($1::text::jsonb))) x`, [ids]);
  return rows.length;
}

export function askIndex(db: SqlExecutor): AskIndexRepository {
  // The fold's due check counts the deltas written since each campaign's last fold (migration 0054's
  // partial index), not every row. It is skipped while fewer rows were inserted since the last check
  // than the least any campaign still needed to pass the threshold (pg_stat counters: they lag by up
  // to seconds, so a fold may come a pass late, never with a wrong count).
  let checked: { threshold: number; inserted: number; headroom: number } | undefined;
  return {
    indexTranscript: (sessionId) => indexTranscript(db, sessionId),
    async reindex(campaignId) {
      const scope = campaignId ? `where campaign_id = $1` : "";
      const params = campaignId ? [campaignId] : [];
      await db.query(`delete from ask_passages ${scope}`, params);
      for (const [table, indexer] of INDEXERS) await db.query(`select ${indexer}(id) from ${table} ${scope}`, params);
      const sessions = await db.query(`select session_id from transcripts ${scope}`, params);
      for (const row of sessions) await indexTranscript(db, str(row.session_id));
      // Fold the running counts (migration 0018); a deleted campaign's fold to nothing.
      await db.query(`select ask_counts_compact(c) from (select distinct campaign_id as c from ask_counts ${scope}) x`, params);
      const [count] = await db.query(`select count(*)::int as n from ask_passages ${scope}`, params);
      return Number(count!.n);
    },
    async foldCounts(threshold, limit) {
      const [stat] = await db.query(
        `select current_setting('track_counts')::boolean as tracked,
                coalesce((select n_tup_ins from pg_stat_user_tables where relid = 'ask_counts'::regclass), 0) as inserted`,
      );
      const inserted = Number(stat!.inserted);
      if (stat!.tracked && checked?.threshold === threshold && inserted >= checked.inserted && inserted - checked.inserted < checked.headroom) return [];
      const [row] = await db.query(
        `with pending as (select campaign_id, count(*) as deltas from ask_counts where not folded group by campaign_id)
         select array(select campaign_id from pending where deltas > $1 order by deltas desc, campaign_id limit $2) as due,
                coalesce((select max(deltas) from pending where deltas <= $1), 0) as highest`,
        [threshold, limit],
      );
      const folded = (row!.due as string[]).map(str);
      // After a fold, look again next time (its own rows are inserts too).
      checked = folded.length ? undefined : { threshold, inserted, headroom: threshold - Number(row!.highest) };
      for (const campaignId of folded) await db.query(`select ask_counts_compact($1)`, [campaignId]);
      return folded;
    },
    async pack(minPassages, limit, options = {}) {
      // Migration 0040: a build is written a few thousand postings a statement, so that on PGlite's
      // one connection requests run between them (each statement is queued behind those already
      // waiting; the pause lets a request's next statement in too). PostgreSQL builds on a
      // connection of its own and needs no pause.
      const pglite = (db as { backend?: string }).backend === "pglite";
      const budget = options.postingsPerStatement ?? (pglite ? 20_000 : 200_000);
      const between = options.between ?? (pglite ? (ms: number) => Bun.sleep(Math.max(5, ms)) : null);
      const step = async (text: string, params: unknown[]) => {
        const started = performance.now();
        const rows = await db.query(text, params);
        if (between) await between(performance.now() - started);
        return rows;
      };
      // PGlite has no autovacuum, and the statistics pass's VACUUM of ask_packed after a rebuild (135 MB
      // of TOAST written and as much deleted at 105k passages) is one statement of a second or more:
      // vacuumed here every ~1M postings written or deleted instead, each vacuum reading only the
      // pages changed since the last.
      const vacuumEvery = options.vacuumEveryPostings ?? (pglite ? 1_000_000 : 0);
      let churned = 0;
      const written = async () => {
        if (!vacuumEvery || (churned += budget) < vacuumEvery) return;
        churned = 0;
        await step(`vacuum (skip_locked) ask_packed`, []);
      };
      // Rows of replaced, stale or abandoned builds, a batch a statement.
      const sweep = async () => {
        while (Number((await step(`select ask_pack_sweep($1::bigint) as n`, [budget]))[0]!.n) > 0) await written();
      };
      // A build left half written (the process stopped) is abandoned after this long untouched.
      await db.query(`select ask_pack_expire(interval '5 minutes')`);
      await sweep();
      const campaigns = await db.query(
        // Each campaign's passage count by its own ask_counts key (not a scan of every word's counts).
        `with live as (select c.id as campaign_id, x.n from campaigns c
                         cross join lateral (select sum(a.n) as n from ask_counts a where a.campaign_id = c.id and a.term = '') x
                       where x.n >= $1)
         select l.campaign_id, l.n, b.max_passage_id, b.passages,
                -- Counted only as far as the decision below needs: past a tenth of the build the
                -- answer is "pack again" however many there are (740,000 read in 0.5 s on PGlite).
                case when b.max_passage_id is null then 0 else (
                  select count(*) from (select from ask_passages p where p.id > b.max_passage_id and p.campaign_id = l.campaign_id
                                        limit b.passages / 10 + 1) x) end as newer
         from live l left join ask_packed_builds b using (campaign_id)`,
        [minPassages],
      );
      const due = campaigns.filter((c) => {
        if (c.max_passage_id === null) return true;
        const [built, newer, live] = [Number(c.passages), Number(c.newer), Number(c.n)];
        // Postings newer than the build are read row by row, and deleted passages' postings are
        // scored for nothing: past a tenth of the build, pack again.
        return newer > built / 10 || built + newer - live > built / 10;
      });
      const packed: string[] = [];
      for (const c of due.slice(0, limit)) {
        const campaignId = str(c.campaign_id);
        // The cutoff in a statement of its own: its lock on ask_passages ends before the build. A
        // long write (an import) holding it past the cutoff's lock timeout puts the build off to the
        // next pass: not a failure.
        let cut: Row | undefined;
        try {
          [cut] = await step(`select ask_packed_cutoff() as id`, []);
        } catch (error) {
          if (isLockTimeout(error)) continue;
          throw error;
        }
        const [begun] = await step(`select ask_pack_begin($1, $2::bigint) as build`, [campaignId, String(cut!.id)]);
        // Null: another instance is writing a build of it.
        if (begun!.build === null) continue;
        const build = String(begun!.build);
        let more = 1;
        while (more > 0) {
          more = Number((await step(`select ask_pack_batch($1, $2::bigint, $3::bigint) as more`, [campaignId, build, budget]))[0]!.more);
          await written();
        }
        // -1: the build went meanwhile (a passage rewritten in place, the campaign deleted).
        if (more === 0 && (await step(`select ask_pack_finish($1, $2::bigint) as done`, [campaignId, build]))[0]!.done) packed.push(campaignId);
      }
      await sweep();
      return packed;
    },
  };
}

/** Passages embedded per request in the background (one batchEmbedContents call). */
const EMBED_BATCH = 64;

export interface RetrieverOptions {
  embedder?: Embedder | null;
  /** How vectors are ranked; by default pgvector when the server has it (detected on first use), else the application. */
  vectorSearch?: VectorSearch;
  /** Nearest passages by vector that join the lexical candidates. */
  denseCandidates?: number;
  /** Candidates BM25 hands to the second stage. */
  candidates?: number;
  /** Decoded packed lists (migration 0037) a process keeps between questions. */
  packedCacheBytes?: number;
  /** Never the packed lists: the SQL statement alone (tests and benchmarks compare the two). */
  sqlOnly?: boolean;
  /** Ranking weights (tuned on bench/ask); the defaults are what the benchmark recorded. */
  weights?: Partial<typeof WEIGHTS>;
}

/** Boosts, as shares of the best lexical score of the query. */
export const WEIGHTS = { entity: 0.5, link: 0.15, speaker: 0.1, hint: 0.6, k1: 0.9, b: 0.75, minLength: 0, coverage: 0, feedback: 0, feedbackDocs: 5, feedbackTerms: 10, perSession: 0, commonShare: 0.2 };

/** Words of the question as the index stores them (English stems, no stop words), with the names it mentions. */
interface Analysis {
  terms: string[];
  weights: number[];
  entityIds: string[];
  speakerLabels: string[];
  hintedSessions: string[];
  blockedSessions: string[] | null;
  /** The campaign's packed build (migration 0037), when it has one: its words are scored in the application. */
  packedBuild: string | null;
}

const SESSION_ORDER = `order by session_date, created_at, id`;
const SESSION_ORDER_BACK = `order by session_date desc, created_at desc, id desc`;
// The lists whose vocabulary holds the names' words (search_terms, 0025): characters approved or not, entities by kind.
const NAME_LISTS = "characters,characters:unapproved,faction,location,item";
// A misspelled word's nearest words in those lists, and the records holding them, most similar
// first: a misspelling names a few records, not every name that shares its letters.
const NEAR_WORDS = 16;
const MISSPELLING_WORDS = 24;
const NEAR_RECORDS = 64;

async function analyse(db: SqlExecutor, query: RetrievalQuery): Promise<Analysis> {
  const hints = sessionHints(query.text);
  const [row] = await db.query(
    `with qv as (select to_tsvector('english', $2) as v),
          -- Words of the question a misspelled name may hide in: its first ${MISSPELLING_WORDS} (a long
          -- follow-up costs one vocabulary search a word).
          words as (select u.w from unnest(regexp_split_to_array(lower($2), '[^[:alnum:]]+')) with ordinality u(w, i)
                    where length(u.w) >= 5 group by u.w order by min(u.i) limit ${MISSPELLING_WORDS}),
          -- The records the question may name, looked up rather than read whole (migration 0049): a
          -- name whose key is a window of the question, or, for a misspelling, a record holding one
          -- of the nearest words of the lists to a question word the lists do not hold.
          windows as (select ask_phrase_windows(qv.v) as keys from qv),
          near as (select n.term, n.sim from search_near_words($1, '${NAME_LISTS}', array(select w from words), ${NEAR_WORDS}) n where n.sim < 1),
          candidates as (
            select c.id from characters c, windows
            where c.campaign_id || '' = $1 and ask_name_keys(c.character_name, c.player_name, c.character_aliases) && windows.keys
            union
            select e.id from entities e, windows where e.campaign_id || '' = $1 and ask_name_keys(e.name, null::text, e.aliases) && windows.keys
            union
            (select t.record_id from near join search_terms t on t.campaign_id = $1 and t.list = any ('{${NAME_LISTS}}'::text[]) and t.term = near.term
             order by near.sim desc, t.created_at desc limit ${NEAR_RECORDS})),
          -- Each candidate read by its key (the limit keeps the planner from hashing the whole table).
          names as (
            select c.id, c.speaker, n from candidates k
                   cross join lateral (select c.id, coalesce(sp.name, '') as speaker, array[c.character_name, c.player_name] || ask_json_list(c.character_aliases) as names
                                       from characters c left join speakers sp on sp.id = c.speaker_id where c.id = k.id and c.campaign_id = $1 limit 1) c,
                   unnest(c.names) n where n <> ''
            union all
            select e.id, '', n from candidates k
                   cross join lateral (select e.id, array[e.name] || ask_json_list(e.aliases) as names from entities e where e.id = k.id and e.campaign_id = $1 limit 1) e,
                   unnest(e.names) n),
          exact as (select distinct names.id, names.speaker from names, qv where qv.v @@ phraseto_tsquery('english', names.n)),
          -- A word of the question that is not a name but looks like one: a misspelling ("Kragamer").
          fuzzy as (select distinct names.id, names.speaker, nw from names, unnest(regexp_split_to_array(lower(names.n), '[^[:alnum:]]+')) nw, words w
                    where length(nw) >= 5 and w.w <> nw and similarity(w.w, nw) >= 0.4),
          named as (select id, speaker from exact union select id, speaker from fuzzy)
     select (select coalesce(array_agg(distinct lexeme), '{}') from qv, unnest(qv.v)) as terms,
            (select coalesce(array_agg(distinct t), '{}') from fuzzy, unnest(tsvector_to_array(to_tsvector('english', fuzzy.nw))) t) as name_terms,
            (select coalesce(array_agg(id), '{}') from named) as entity_ids,
            (select coalesce(array_agg(distinct speaker), '{}') from named where speaker <> '') as speakers,
            -- Sessions by their place in the campaign's date order: an index read as long as the number.
            (select coalesce(array_agg(h.id), '{}') from (
               select (select s.id from sessions s where s.campaign_id = $1 ${SESSION_ORDER} offset n - 1 limit 1) as id
               from unnest($3::int[] || case when $5 then array[1] else '{}'::int[] end) n
               union
               select (select s.id from sessions s where s.campaign_id = $1 ${SESSION_ORDER_BACK} offset k - 1 limit 1)
               from unnest($4::int[]) k) h where h.id is not null) as hinted,
            (select array_agg(l.id) from sessions a join sessions l on l.campaign_id = a.campaign_id
              and (l.session_date, l.created_at, l.id) > (a.session_date, a.created_at, a.id) where a.id = $6 and a.campaign_id = $1) as later,
            (select build_id from ask_packed_builds where campaign_id = $1) as packed_build`,
    [query.campaignId, query.text, hints.numbers, hints.back, hints.first, query.asOfSessionId ?? null],
  );
  const terms = (row!.terms as string[]) ?? [];
  const nameTerms = ((row!.name_terms as string[]) ?? []).filter((t) => !terms.includes(t));
  return {
    // A name recognised through a misspelling brings its real words in.
    terms: [...terms, ...nameTerms],
    weights: [...terms.map(() => 1), ...nameTerms.map(() => 0.8)],
    entityIds: (row!.entity_ids as string[]) ?? [],
    speakerLabels: (row!.speakers as string[]) ?? [],
    hintedSessions: (row!.hinted as string[]) ?? [],
    blockedSessions: query.asOfSessionId ? ((row!.later as string[] | null) ?? []) : null,
    packedBuild: row!.packed_build === null || row!.packed_build === undefined ? null : String(row!.packed_build),
  };
}

export function sqlRetriever(db: SqlExecutor & { backend?: string }, options: RetrieverOptions = {}): Retriever {
  const candidates = options.candidates ?? 30;
  const denseCandidates = options.denseCandidates ?? 30;
  const embedder = options.embedder ?? null;
  const weights = { ...WEIGHTS, ...options.weights };
  let staleModelsCleared = false;
  const packedCache = new PackedCache(options.packedCacheBytes ?? 32 * 1024 * 1024);
  let vectorIndex: Promise<VectorIndex> | null = null;
  const vectors = () =>
    (vectorIndex ??= (async () => {
      const mode = options.vectorSearch ?? ((await detectPgvector(db, db.backend)) ? "pgvector" : "application");
      return mode === "pgvector" ? pgvectorIndex(db) : applicationIndex(db);
    })());

  // Two stages: every posting of the rarer words names the candidates; the common words (in more
  // than a $11 share of the passages) are looked up only for those, by (campaign, word, passage).
  // The caller checks the result is exact: no passage holding common words alone could have
  // entered the top (their best possible score is below the last one's).
  const SQL_SCORED = `rare as (
              select t.passage_id, t.term, t.tf, t.len from ask_terms t join idf i on t.term = i.term
              where t.campaign_id = $1 and not i.common and not exists (select 1 from blocked b where b.id = t.passage_id)),
            cand as (select distinct passage_id from rare),
            hits as (
              select * from rare
              union all
              select t.passage_id, t.term, t.tf, t.len from cand c cross join idf i
                join ask_terms t on t.campaign_id = $1 and t.term = i.term and t.passage_id = c.passage_id
              where i.common),
            scored as (
              select h.passage_id, sum(i.w * h.tf * ${weights.k1 + 1} / (h.tf + ${weights.k1} * (${1 - weights.b} + ${weights.b} * greatest(h.len / st.avglen, ${weights.minLength})))) as score,
                     sum(i.w) / max(tot.w) as coverage
              from hits h join idf i using (term) cross join stats st cross join total tot
              group by h.passage_id order by score desc limit $7)`;
  // Scored in the application (packedLexical): the best candidates, of which those still in the
  // campaign and readable by the asker (the blocked CTE's rule, asked of each candidate) stay.
  // `first`: the parameter number of the candidates' ids (their scores and coverages follow it).
  const packedScored = (first: number) => `scored as (
              select c.passage_id, c.score, c.coverage
              from unnest($${first}::bigint[], $${first + 1}::float8[], $${first + 2}::float8[]) c(passage_id, score, coverage)
                join ask_passages p on p.id = c.passage_id and p.campaign_id = $1
              where not coalesce((p.kind = 'journal' and $2::text is not null and not (p.is_public or p.author_id = $2::text or $2::text = any(p.readers)))
                                 or ($3::text[] is not null and (p.session_id = any($3::text[]) or (p.kind = 'beat' and p.session_ids && $3::text[]))), false)
              order by c.score desc limit $7)`;

  async function lexical(query: RetrievalQuery, a: Analysis, denseIds: string[] = []): Promise<Row[]> {
    if (a.packedBuild !== null && a.terms.length && !options.sqlOnly) {
      const rows = await packedLexical(query, a, denseIds);
      if (rows) return rows;
    }
    const rows = await lexicalPass(query, a, denseIds, weights.commonShare);
    const [first] = rows;
    const exact = first && (Number(first.common_bound) === 0 || (Number(first.scored_n) >= candidates && Number(first.last_score) >= Number(first.common_bound)));
    // Otherwise every posting of every word is read, as before two stages (a share of 1: no word is common).
    return exact || !a.terms.length ? rows : lexicalPass(query, a, denseIds, 1);
  }

  /**
   * BM25 over the campaign's packed lists (migration 0037) and the postings written since its build,
   * scored in the application (adapters/sql/packed.ts); null when the build went meanwhile. Every
   * posting of every word is scored, so this is the exact top the SQL statement's check proves.
   * The best candidates go to the statement, which drops deleted passages and those the asker may
   * not read; while that leaves fewer than `candidates`, more are sent (eight times as many, then all).
   */
  async function packedLexical(query: RetrievalQuery, a: Analysis, denseIds: string[]): Promise<Row[] | null> {
    const build = a.packedBuild!;
    // The lists this process holds for the build the analysis saw (kept here: another question may evict them meanwhile).
    const held = new Map(a.terms.flatMap((term) => {
      const list = packedCache.get(query.campaignId, term, build);
      return list ? [[term, list] as const] : [];
    }));
    const fetched = await db.query(
      `with b as (select build_id, max_passage_id from ask_packed_builds where campaign_id = $1),
            stats as (select greatest(coalesce(sum(n), 0), 1)::real as n, coalesce(sum(len) / nullif(sum(n), 0), 1)::real as avglen
                      from ask_counts where campaign_id = $1 and term = '')
       select q.term, q.ord, st.n, st.avglen, b.build_id,
              coalesce((select sum(c.n) from ask_counts c where c.campaign_id = $1 and c.term = q.term), 0)::real as df,
              p.n as packed_n, p.base, p.ids, p.tfs, p.lens, d.ids as delta_ids, d.tfs as delta_tfs, d.lens as delta_lens
       from unnest($2::text[]) with ordinality q(term, ord) cross join stats st cross join b
         -- One primary-key probe a word, whatever ask_packed's statistics say: planned as a join, a
         -- build newer than the last ANALYZE (one row expected) read the build's every word a word.
         left join lateral (select p.n, p.base, p.ids, p.tfs, p.lens from ask_packed p
                            where p.campaign_id = $1 and p.build_id = b.build_id and p.term = q.term limit 1) p on not (b.build_id = $3::bigint and q.term = any($4::text[]))
         cross join lateral (select array_agg(t.passage_id order by t.passage_id) as ids, array_agg(t.tf order by t.passage_id) as tfs,
                                    array_agg(t.len order by t.passage_id) as lens
                             from ask_terms t where t.campaign_id = $1 and t.term = q.term and t.passage_id > b.max_passage_id) d
       where q.term <> ''`,
      [query.campaignId, a.terms, build, [...held.keys()]],
    );
    if (!fetched.length) return null;
    const current = String(fetched[0]!.build_id);
    const n = Number(fetched[0]!.n);
    const lists: { w: number; list: PostingList }[] = [];
    let totalW = 0;
    for (const row of fetched) {
      const term = str(row.term);
      const w = termWeight(a.weights[Number(row.ord) - 1]!, n, Number(row.df));
      totalW += w;
      let packed = current === build ? held.get(term) : undefined;
      if (!packed) packedCache.set(query.campaignId, term, current, (packed = packedRow(row)));
      lists.push({ w, list: packed }, { w, list: listFromArrays(row.delta_ids, row.delta_tfs, row.delta_lens) });
    }
    const found = scoreLists(lists, Number(fetched[0]!.avglen), weights, totalW);
    for (let k = Math.min(found.count, Math.max(100, candidates * 3)); ; k = Math.min(found.count, k * 8)) {
      const top = topCandidates(found, k);
      const rows = a.hintedSessions.length || denseIds.length ? await lexicalPass(query, a, denseIds, weights.commonShare, top) : await packedOnly(query, a, top);
      const scored = rows.length ? Number(rows[0]!.scored_n) : 0;
      if (scored >= candidates || k >= found.count) return rows;
    }
  }

  /**
   * The statement of lexicalPass for the packed candidates alone (no session named, no vectors):
   * the same rows, without the CTEs that would find nothing, so planned in a fraction of the time.
   */
  async function packedOnly(query: RetrievalQuery, a: Analysis, top: { ids: number[]; scores: number[]; coverages: number[] }): Promise<Row[]> {
    const viewer = "readableBy" in query.journals ? query.journals.readableBy : null;
    return db.query(
      `with ${packedScored(4)}
       select p.id, p.kind, p.source_id, coalesce(nullif(p.title, ''), s.title, '') as title, p.body, p.session_id, p.speakers,
              p.utterance_start, p.utterance_end, p.start_s, p.end_s, scored.score, scored.coverage,
              p.source_id = any($8::text[]) as is_entity,
              (cardinality($8::text[]) > 0 and exists (select 1 from links l where l.from_id = p.source_id and l.to_id = any($8::text[]))) as links_entity,
              coalesce(p.speakers && $9::text[], false) as spoken_by_entity,
              false as hinted_session,
              (select count(*)::int from sessions o where o.campaign_id = $1
                and (o.session_date, o.created_at, o.id) <= (s.session_date, s.created_at, s.id)) as session_number,
              (select count(*)::int from scored) as scored_n
       from scored join ask_passages p on p.id = scored.passage_id left join sessions s on s.id = p.session_id`,
      [query.campaignId, viewer, a.blockedSessions, top.ids, top.scores, top.coverages, candidates, a.entityIds, a.speakerLabels],
    );
  }

  async function lexicalPass(query: RetrievalQuery, a: Analysis, denseIds: string[], commonShare: number, top?: { ids: number[]; scores: number[]; coverages: number[] }): Promise<Row[]> {
    if (!a.terms.length && !a.hintedSessions.length && !denseIds.length) return [];
    const viewer = "readableBy" in query.journals ? query.journals.readableBy : null;
    // Passages the asker may not read never reach the scoring: other users' private journal
    // chunks, and (spoiler-safe asking) whatever tells of a later session.
    return db.query(
      `with q as (select * from unnest($5::text[], $6::real[]) as q(term, qw) where q.term <> ''),
            blocked as (
              select id from ask_passages where campaign_id = $1 and kind = 'journal' and $2::text is not null
                and not (is_public or author_id = $2::text or $2::text = any(readers))
              union all
              select id from ask_passages where campaign_id = $1 and $3::text[] is not null and session_id = any($3::text[])
              union all
              select id from ask_passages where campaign_id = $1 and kind = 'beat' and $3::text[] is not null and session_ids && $3::text[]),
            -- Passage count, mean length and document frequencies are running counts (migration 0018),
            -- not counts over every passage and posting; they include passages this asker may not
            -- read, as the passage count always did.
            stats as (select greatest(coalesce(sum(n), 0), 1)::real as n, coalesce(sum(len) / nullif(sum(n), 0), 1)::real as avglen
                      from ask_counts where campaign_id = $1 and term = ''),
            dfs as (select q.term, coalesce((select sum(c.n) from ask_counts c where c.campaign_id = $1 and c.term = q.term), 0)::real as df from q),
            idf as (select q.term, d.df > $11::real * st.n as common, q.qw * ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) as w
                    from q join dfs d using (term) cross join stats st),
            total as (select greatest(sum(w), 1e-6) as w from idf),
            ${top ? packedScored(12) : SQL_SCORED},
            -- A question naming a session ("session 8", "last session") reads that session's best matches too, and its record.
            hinted_scored as (
              select h.passage_id, sum(i.w * h.tf * ${weights.k1 + 1} / (h.tf + ${weights.k1} * (${1 - weights.b} + ${weights.b} * greatest(h.len / st.avglen, ${weights.minLength})))) as score,
                     sum(i.w) / max(tot.w) as coverage
              from ask_passages p join idf i on true
                join ask_terms h on h.campaign_id = $1 and h.term = i.term and h.passage_id = p.id
                cross join stats st cross join total tot
              where cardinality($4::text[]) > 0 and p.campaign_id = $1 and p.session_id = any($4::text[])
                and not exists (select 1 from blocked b where b.id = p.id)
              group by h.passage_id order by score desc limit 10),
            hinted as (
              select p.id as passage_id, 0::real as score, 0::real as coverage from ask_passages p
              where p.campaign_id = $1 and p.session_id = any($4::text[]) and p.kind in ('session', 'beat', 'moment')
                and not exists (select 1 from blocked b where b.id = p.id)
              union all select * from hinted_scored),
            -- Nearest by vector (already filtered by permission; checked again here).
            dense as (select d.id as passage_id, 0::real as score, 0::real as coverage from unnest($10::bigint[]) d(id)
                      where not exists (select 1 from blocked b where b.id = d.id)),
            picked as (select passage_id, max(score) as score, max(coverage) as coverage from (select * from scored union all select * from hinted union all select * from dense) x group by passage_id)
       select p.id, p.kind, p.source_id, coalesce(nullif(p.title, ''), s.title, '') as title, p.body, p.session_id, p.speakers,
              p.utterance_start, p.utterance_end, p.start_s, p.end_s, picked.score, picked.coverage,
              p.source_id = any($8::text[]) as is_entity,
              (cardinality($8::text[]) > 0 and exists (select 1 from links l where l.from_id = p.source_id and l.to_id = any($8::text[]))) as links_entity,
              coalesce(p.speakers && $9::text[], false) as spoken_by_entity,
              coalesce(p.session_id = any($4::text[]), false) as hinted_session,
              (select count(*)::int from sessions o where o.campaign_id = $1
                and (o.session_date, o.created_at, o.id) <= (s.session_date, s.created_at, s.id)) as session_number,
              (select count(*)::int from scored) as scored_n, (select min(score) from scored) as last_score,
              -- BM25 gives one word at most w * (k1 + 1), whatever its count and the passage length.
              (select coalesce(sum(w), 0) * ${weights.k1 + 1} from idf where common) as common_bound
       from picked join ask_passages p on p.id = picked.passage_id left join sessions s on s.id = p.session_id`,
      [query.campaignId, viewer, a.blockedSessions, a.hintedSessions, a.terms, a.weights, candidates, a.entityIds, a.speakerLabels, denseIds, commonShare,
       ...(top ? [top.ids, top.scores, top.coverages] : [])],
    );
  }

  function boosted(row: Row, best: number): number {
    let score = Number(row.score) * Math.pow(Math.max(Number(row.coverage), 1e-3), weights.coverage);
    // Boosts are shares of the best lexical score, so they mean the same in every campaign.
    if (row.is_entity) score += weights.entity * best;
    if (row.links_entity) score += weights.link * best;
    if (row.spoken_by_entity) score += weights.speaker * best;
    if (row.hinted_session) score += weights.hint * best;
    return score;
  }

  function rank(rows: Row[]) {
    const best = Math.max(...rows.map((row) => Number(row.score)), 1e-6);
    return rows.map((row) => ({ row, score: boosted(row, best) })).sort((x, y) => y.score - x.score || Number(x.row.id) - Number(y.row.id));
  }

  async function feedbackTerms(campaignId: string, ids: string[], known: string[]): Promise<{ term: string; weight: number }[]> {
    const rows = await db.query(
      `with fb as (select unnest($2::bigint[]) as id),
            cand as (select t.term, count(*) as docs, sum(t.tf / t.len) as w from ask_terms t join fb on t.passage_id = fb.id
                     where t.campaign_id = $1 and not (t.term = any($3::text[])) and length(t.term) > 2
                     group by t.term having count(*) >= 2 order by w desc limit 30),
            n as (select count(*)::real as n from ask_passages where campaign_id = $1),
            df as (select c.term, c.w, (select count(*) from (select 1 from ask_terms a where a.campaign_id = $1 and a.term = c.term limit 2000) x)::real as df from cand c)
       select term, w * ln(1 + (n.n - df + 0.5) / (df + 0.5)) as score from df, n order by score desc limit $4`,
      [campaignId, ids, known, weights.feedbackTerms],
    );
    const top = Math.max(...rows.map((row) => Number(row.score)), 1e-6);
    return rows.map((row) => ({ term: str(row.term), weight: (weights.feedback * Number(row.score)) / top }));
  }

  /** Passage ids nearest the question's vector, best first; [] without an embedder or when it fails. */
  async function dense(query: RetrievalQuery, a: Analysis): Promise<string[]> {
    if (!embedder) return [];
    let vector: number[];
    try {
      [vector] = (await embedder.embed([query.text], "query", query.signal)) as [number[]];
    } catch (error) {
      // The embedding service failing must not stop Ask: the lexical ranking answers alone.
      if (query.signal?.aborted) throw error;
      return [];
    }
    const viewer = "readableBy" in query.journals ? query.journals.readableBy : null;
    return (await vectors()).nearest({ campaignId: query.campaignId, viewer, blockedSessions: a.blockedSessions, model: embedder.name, vector, limit: denseCandidates });
  }

  return {
    async retrieve(query) {
      const analysis = await analyse(db, query);
      const denseOrder = await dense(query, analysis);
      let rows = await lexical(query, analysis, denseOrder);
      if (!rows.length) return [];
      let ranked = rank(rows);
      if (weights.feedback > 0) {
        // Pseudo-relevance feedback: words the best passages share, added to the question with a low
        // weight, find passages that answer it in other words.
        const expansion = await feedbackTerms(query.campaignId, ranked.slice(0, weights.feedbackDocs).map((x) => String(x.row.id)), analysis.terms);
        if (expansion.length) {
          rows = await lexical(query, { ...analysis, terms: [...analysis.terms, ...expansion.map((e) => e.term)], weights: [...analysis.weights, ...expansion.map((e) => e.weight)] }, denseOrder);
          ranked = rank(rows);
        }
      }
      let order = ranked;
      if (denseOrder.length) {
        // Reciprocal-rank fusion: the lexical list holds only passages with a lexical score or a
        // boost (a passage found by vector alone earns nothing there), the dense list its own order.
        const present = new Set(rows.map((row) => String(row.id)));
        const lexicalList = ranked.filter((x) => x.score > 0).map((x) => String(x.row.id));
        const fused = reciprocalRankFusion([lexicalList, denseOrder.filter((id) => present.has(id))]);
        order = [...ranked].sort((x, y) => (fused.get(String(y.row.id)) ?? 0) - (fused.get(String(x.row.id)) ?? 0) || y.score - x.score);
      }
      // Overlapping windows of one transcript say the same thing twice: the better one stands for both.
      const kept: typeof order = [];
      for (const candidate of order) {
        if (kept.length >= query.limit) break;
        const r = candidate.row;
        const overlaps = r.kind === "transcript" && kept.some((k) => k.row.kind === "transcript" && k.row.source_id === r.source_id && Number(k.row.utterance_start) <= Number(r.utterance_end) && Number(r.utterance_start) <= Number(k.row.utterance_end));
        const sameSession = weights.perSession > 0 && r.session_id !== null ? kept.filter((k) => k.row.session_id === r.session_id).length : 0;
        if (!overlaps && (weights.perSession === 0 || sameSession < weights.perSession)) kept.push(candidate);
      }
      return kept.map(({ row, score }) => toPassage(row, score));
    },
    async indexPending(campaignId, signal) {
      if (!embedder) return 0;
      if (!staleModelsCleared) {
        // Vectors of another model are never compared with this one's: they are embedded again.
        await db.query(`update ask_passages set embedding = null, embedded_seq = null where embedding is not null and embedding_model <> $1`, [embedder.name]);
        staleModelsCleared = true;
        await vectors(); // pgvector's column, where the server has it, before vectors are written
      }
      let done = 0;
      for (;;) {
        if (signal?.aborted) return done;
        const rows = await db.query(
          `select id, title, body from ask_passages where embedding is null and ($1::text is null or campaign_id = $1) order by id limit $2`,
          [campaignId, EMBED_BATCH],
        );
        if (!rows.length) return done;
        // One batchEmbedContents request per batch (the adapter splits above the API's limit).
        const vectors = await embedder.embed(rows.map((row) => `${str(row.title)}\n${str(row.body)}`.slice(0, 8000)), "document", signal);
        // One statement per batch; a passage deleted or rewritten meanwhile is simply not matched.
        await db.query(
          `update ask_passages p set embedding = array(select jsonb_array_elements_text(v.vec)::real), embedding_model = $3,
                  embedded_seq = nextval('ask_embedding_seq')
           from unnest($1::bigint[]) with ordinality ids(id, n) join jsonb_array_elements($2::text::jsonb) with ordinality v(vec, n) using (n)
           where p.id = ids.id and p.embedding is null`,
          [rows.map((row) => row.id), JSON.stringify(vectors), embedder.name],
        );
        done += rows.length;
      }
    },
  };
}

function toPassage(row: Row, score: number): Passage {
  const kind = str(row.kind) as PassageKind;
  const passage: Passage = {
    kind,
    sourceId: str(row.source_id),
    title: str(row.title),
    text: str(row.body),
    sessionId: row.session_id === null ? null : str(row.session_id),
    sessionNumber: row.session_id === null || !Number(row.session_number) ? null : Number(row.session_number),
    score: Math.round(score * 1000) / 1000,
    coverage: Math.round(Number(row.coverage) * 1000) / 1000,
  };
  if (kind === "transcript")
    passage.transcript = {
      session_id: str(row.source_id),
      utterance_start: Number(row.utterance_start),
      utterance_end: Number(row.utterance_end),
      start: Number(row.start_s),
      end: Number(row.end_s),
      speakers: (row.speakers as string[]) ?? [],
    };
  return passage;
}

/** Registers this file's repositories on the SQL store (adapters/sql/records.ts finds it). */
export const repositories = { askIndex } satisfies SqlRepositories;
