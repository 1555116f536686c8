// Search and list benchmark (issues 3 and 15): list first pages, list search and cross-type search
// on one campaign whose size is a parameter, on PostgreSQL (or PGlite), under a real load generator.
//
//   bun bench/search.ts                              10,000 per kind on PostgreSQL at 127.0.0.1:5432 (or BENCH_POSTGRES_URL)
//   BENCH_CHARACTERS=100000 bun bench/search.ts      100,000 per kind (CHARACTERS=… is read too)
//   BENCH_BACKEND=pglite                             the embedded database (seeded with the service stopped)
//   BENCH_SEED=api                                   black box: characters and locations created with POST, measured at once
//   BENCH_CHARACTERS (10000), BENCH_LOCATIONS (= characters), BENCH_LINKS (5 × characters), BENCH_OTHERS (= characters:
//   factions, items, beats, moments, quests, sessions, journal entries each), BENCH_ONLY (scenario labels containing it; alternatives split by |),
//   BENCH_POOL_SIZE (5), BENCH_CONNECTIONS (16), BENCH_DURATION (8 s), BENCH_WARMUP (2 s), BENCH_KEEP_DB, BENCH_SEED_ONLY,
//   BENCH_RESULTS (search-<backend>-<seed>-<count>.json), BENCH_TIME_LIMIT (3600 s),
//   BENCH_REUSE_URL (measure a database a BENCH_KEEP_DB run kept, with the same counts: no seeding;
//   with BENCH_BACKEND=pglite it is copied into a new PGlite folder first, see below),
//   BENCH_KEEP_DIR (PGlite: keep the data folder, path printed at the end), BENCH_REUSE_DIR (measure that folder again),
//   BENCH_DB_SETTINGS (PostgreSQL settings of the scratch database only, e.g.
//   "log_lock_waits=on,deadlock_timeout=200ms,log_min_duration_statement=300": diagnosis of a run
//   without touching the server's configuration; the API seed lists every POST over 1 s to match)
//
// PGlite at 100k: its own seed runs every per-row trigger in single-threaded WebAssembly (about
// 1.7 ms of CPU a row, hours for 100k per kind), so seed PostgreSQL with BENCH_KEEP_DB (and
// BENCH_SEED_ONLY), then BENCH_BACKEND=pglite BENCH_REUSE_URL=<that database> copies its rows
// (written by the same trigger functions) into PGlite's schema: bench/lib/pglite-copy.ts.
//
// The service runs as its own process on a scratch database; load comes from bench/loadgen.mjs
// (autocannon on Node) in another process; only 127.0.0.1 is targeted; everything started here is
// stopped at the end, even on error. Every query is checked to find what it looks for (by name: at
// 100k the generated names repeat) before it is timed. Results: a table on stdout and bench/results/.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { characterSearchText } from "../domain/characters.ts";
import { entitySearchText } from "../domain/entities.ts";
import { openPglite, openPostgres, type SqlDatabase } from "../adapters/sql/database.ts";
import { applyMigrations } from "../adapters/sql/migrate.ts";
import { sqlRecordStore } from "../adapters/sql/records.ts";
import { uuidV7 } from "../adapters/system/system.ts";
import { PACK_MIN_PASSAGES } from "../application/retrieval.ts";
import { loadMigrations } from "../infra/schema.ts";
import { CLK_TCK, countDatabaseAsOurs, cpuBetween, rssMiB, snapshot, type CpuSnapshot } from "./lib/cpu.ts";
import { assertLocalPostgres, env, intEnv, ROOT } from "./lib/env.ts";
import { atCleanup, runBench } from "./lib/lifecycle.ts";
import { runLoadgen } from "./lib/loadgen.ts";
import { call, localSend, mustCaller } from "./lib/local-http.ts";
import { copyPostgresIntoPglite } from "./lib/pglite-copy.ts";
import { createScratchDatabase } from "./lib/postgres.ts";
import { mulberry32 } from "./lib/random.ts";
import { nameQueries } from "./lib/search-queries.ts";
import { stopChild } from "./lib/processes.ts";
import { writeResults } from "./lib/report.ts";
import { createCampaign, createUserWithKey } from "./lib/seed.ts";
import { ADMIN_KEY, type RunningServer, startService, tempDir } from "./lib/servers.ts";

const ADMIN_URL = env("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test");
assertLocalPostgres("BENCH_POSTGRES_URL", ADMIN_URL);
const BACKEND = env("BENCH_BACKEND", "postgres");
if (BACKEND !== "postgres" && BACKEND !== "pglite") throw new Error("BENCH_BACKEND must be postgres or pglite");
const SEED = env("BENCH_SEED", "sql");
if (SEED !== "sql" && SEED !== "api") throw new Error("BENCH_SEED must be sql or api");
const CONNECTIONS = intEnv("BENCH_CONNECTIONS", 16, 1, 1024);
const DURATION = intEnv("BENCH_DURATION", 8, 1, 120);
const WARMUP = intEnv("BENCH_WARMUP", 2, 0, 60);
// As in bench/http.ts: on this 2-core box a pool of 5 beat 10, 20 and 40 (README: 2–3× the cores).
const POOL_SIZE = intEnv("BENCH_POOL_SIZE", 5, 1, 90);
const PER_KIND = intEnv("BENCH_CHARACTERS", intEnv("CHARACTERS", 10_000, 1, 1_000_000), 1, 1_000_000);
const COUNTS = {
  characters: PER_KIND,
  locations: intEnv("BENCH_LOCATIONS", PER_KIND, 1, 1_000_000),
  links: intEnv("BENCH_LINKS", 5 * PER_KIND, 0, 5_000_000),
  others: intEnv("BENCH_OTHERS", SEED === "api" ? 0 : PER_KIND, 0, 1_000_000),
};
const ONLY = process.env.BENCH_ONLY?.split("|").map((part) => part.trim()).filter(Boolean);

// Deterministic fantasy names: a seeded generator so every run searches the same data. mulberry32 in
// 32-bit integer steps: the LCG used before multiplied in doubles, lost its low bits past 2^53 and
// cycled after 15,825 draws, so 100k characters had 3,759 distinct names (one of them 131 times).
// Characters and locations draw from generators of their own, so the n-th location is the same
// whatever the number of characters (one shared generator made the 10k and 100k runs' searched place
// two different names).
const random = mulberry32(42);
const randomPlace = mulberry32(4321);
const pick = <T>(items: readonly T[], draw = random) => items[Math.floor(draw() * items.length)]!;
const SYLLABLES = ["ka", "ra", "vex", "thor", "dun", "mir", "el", "zan", "gor", "lia", "bran", "sy", "las", "tor", "ven", "qua", "dra", "ix", "om", "bel"];
const name = (draw = random) => {
  const word = () => Array.from({ length: 2 + Math.floor(draw() * 2) }, () => pick(SYLLABLES, draw)).join("");
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  return `${cap(word())} ${cap(word())}`;
};
const PLACE_KINDS = ["city", "keep", "forest", "cavern", "temple", "port", "village", "ruin"];
// A word in one record of four (characters and locations: half the documents' quarter each), and one in a single record.
const BROAD = "wayfarer";
const RARE = "quillbrook";
// Sessions of a rare type (and the only public ones): the campaign's oldest.
const RARE_SESSIONS = 10;
// A quest search whose matches grow with the campaign: the quests whose number starts with 12 (111 at 10k, 1,111 at 100k).
const QUEST_SEARCH = "quest 12";
// The same for moments ("Moment N", newest first), hero awards ("Award N") and quotes ("Quote N").
const MOMENT_SEARCH = "moment 12";
const AWARD_SEARCH = "award 12";
const QUOTE_SEARCH = "quote 12";

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

/** Characters and locations with the search text the service would write, and their search documents. */
function generate(campaignId: string) {
  const characters = Array.from({ length: COUNTS.characters }, (_, i) => {
    const character = { character_name: name(), character_aliases: random() < 0.3 ? [name().split(" ")[0]!] : [], player_name: random() < 0.1 ? name() : null, player_handle: null, type: (random() < 0.1 ? "PC" : "NPC") as "PC" | "NPC" };
    const description = `A ${pick(PLACE_KINDS)}-born adventurer${i % 4 === 0 ? `, a ${BROAD}` : ""}${i === 777 % COUNTS.characters ? `, last of ${RARE}` : ""}, number ${i}.`;
    return { id: uuidV7.next(), campaign_id: campaignId, ...character, description, search_text: characterSearchText(character) };
  });
  const locations = Array.from({ length: COUNTS.locations }, (_, i) => {
    const location = { name: name(randomPlace), aliases: [] as string[], type: pick(PLACE_KINDS, randomPlace) };
    return { id: uuidV7.next(), campaign_id: campaignId, ...location, description: `A ${location.type} of old renown${i % 4 === 1 ? `, a ${BROAD} rest` : ""}.`, search_text: entitySearchText(location) };
  });
  return { characters, locations };
}

/** The big seed: multi-row inserts straight into the tables the service reads (as the service writes them; its triggers run). */
async function seedDirect(query: Query, campaignId: string, userId: string, data: ReturnType<typeof generate>) {
  const now = new Date().toISOString();
  let stepAt = performance.now();
  const step = (what: string) => {
    console.log(`  seeded ${what} in ${((performance.now() - stepAt) / 1000).toFixed(1)} s`);
    stepAt = performance.now();
  };
  const batches = async <T>(what: string, rows: T[], sql: string) => {
    for (let i = 0; i < rows.length; i += 2000) await query(sql, [JSON.stringify(rows.slice(i, i + 2000))]);
    step(what);
  };
  // Created a millisecond apart, as records made one by one are: the list order is then the insertion order.
  const stamp = (i: number) => new Date(Date.parse(now) - 10_000_000 + i).toISOString();
  await batches(
    "characters",
    data.characters.map((c, i) => ({ ...c, created_at: stamp(i) })),
    `insert into characters (id, campaign_id, character_name, character_aliases, player_name, type, description, search_text, created_at)
     select r->>'id', r->>'campaign_id', r->>'character_name', r->'character_aliases', r->>'player_name', r->>'type', r->>'description', r->>'search_text', (r->>'created_at')::timestamptz
     from jsonb_array_elements($1::text::jsonb) r`,
  );
  await batches(
    "locations",
    data.locations.map((l, i) => ({ ...l, created_at: stamp(i) })),
    `insert into entities (id, campaign_id, kind, name, aliases, type, description, search_text, created_at)
     select r->>'id', r->>'campaign_id', 'location', r->>'name', r->'aliases', r->>'type', r->>'description', r->>'search_text', (r->>'created_at')::timestamptz
     from jsonb_array_elements($1::text::jsonb) r`,
  );
  const documents = [
    ...data.characters.map((c) => ({ doc_type: "characters", doc_id: c.id, title: c.character_name, body: [c.character_aliases.join(", "), c.player_name, c.type, c.description].filter(Boolean).join("\n") })),
    ...data.locations.map((l) => ({ doc_type: "locations", doc_id: l.id, title: l.name, body: [l.type, l.description].join("\n") })),
  ];
  await batches(
    "search documents",
    documents,
    `insert into search_documents (campaign_id, doc_type, doc_id, title, body, updated_at)
     select '${campaignId}', r->>'doc_type', r->>'doc_id', r->>'title', r->>'body', '${now}' from jsonb_array_elements($1::text::jsonb) r`,
  );
  const links = Array.from({ length: COUNTS.links }, (_, i) => ({ id: uuidV7.next(), from_id: pick(data.characters).id, to_id: pick(data.locations).id, alias: `link ${i}`, created_at: stamp(i) }));
  await batches(
    "links",
    links,
    `insert into links (id, campaign_id, from_type, from_id, to_type, to_id, alias, alias_key, created_at)
     select r->>'id', '${campaignId}', 'Character', r->>'from_id', 'Location', r->>'to_id', r->>'alias', lower(r->>'alias'), (r->>'created_at')::timestamptz
     from jsonb_array_elements($1::text::jsonb) r`,
  );
  // The other listed kinds, generated in the database, 20,000 rows a statement.
  const n = COUNTS.others;
  const series = async (sql: string) => {
    for (let from = 1; from <= n; from += 20_000) await query(sql, [campaignId, from, Math.min(n, from + 19_999), userId, now]);
    step(sql.slice(0, sql.indexOf("(")).replace(/\s+/g, " ").trim());
  };
  const id = `'${uuidV7.next().slice(0, 8)}' || lpad(g::text, 24, '0')`;
  const at = `$5::timestamptz - interval '3 hours' + g * interval '1 millisecond'`;
  for (const kind of ["faction", "item"])
    await series(`insert into entities (id, campaign_id, kind, name, description, search_text, created_at)
      select '${kind}' || ${id}, $1, '${kind}', 'The ${kind} ' || g, 'Bench ${kind}', 'The ${kind} ' || g, ${at} from generate_series($2::int, $3::int) g where $4::text is not null`);
  await series(`insert into beats (id, campaign_id, label, type, index, created_at)
    select 'beat' || ${id}, $1, 'Beat ' || g, 'major', g, ${at} from generate_series($2::int, $3::int) g where $4::text is not null`);
  await series(`insert into moments (id, campaign_id, label, kind, created_at)
    select 'moment' || ${id}, $1, 'Moment ' || g, 'moment', ${at} from generate_series($2::int, $3::int) g where $4::text is not null`);
  await series(`insert into quests (id, campaign_id, order_index, quest_name, quest_category, status, search_text, created_at)
    select 'quest' || ${id}, $1, g, 'Quest ' || g, 'main', 'active', 'Quest ' || g, ${at} from generate_series($2::int, $3::int) g where $4::text is not null`);
  // The ten oldest sessions are the campaign's only voice-chat ones and its only public ones: a
  // filtered session list numbers its rows over the whole campaign, and these are the farthest from
  // the newest end (RARE_SESSIONS).
  await series(`insert into sessions (id, campaign_id, type, title, session_date, created_at, public)
    select 'session' || ${id}, $1, case when g <= ${RARE_SESSIONS} then 'chatVoice' else 'rawNotes' end, 'Session ' || g, ${at}, ${at}, g <= ${RARE_SESSIONS}
    from generate_series($2::int, $3::int) g where $4::text is not null`);
  await seedRecaps(query, campaignId, n);
  step("hero awards and quotes");
  await series(`insert into journal_entries (id, campaign_id, title, content, is_public, author_id, created_at)
    select 'journal' || ${id}, $1, 'Entry ' || g, 'Entry text ' || g, g % 10 <> 0, $4, ${at} from generate_series($2::int, $3::int) g`);
  // Bulk loading leaves GIN pending lists that autovacuum would soon merge; merge them now.
  await query("vacuum analyze");
  step("vacuum analyze");
}

/** Hero awards ("Award N") and quotes ("Quote N"), n of each, one of each on the n-th oldest session (the
 * sessions must be there); a database kept before these were seeded gets them when reused (BENCH_REUSE_URL). */
async function seedRecaps(query: Query, campaignId: string, n: number) {
  for (let from = 1; from <= n; from += 20_000) {
    const params = [campaignId, from, Math.min(n, from + 19_999)];
    const sessions = `(select id, created_at, row_number() over (order by created_at, id) as g from sessions where campaign_id = $1) s`;
    await query(`insert into hero_awards (id, campaign_id, session_id, title, description, character_name, order_index, created_at)
      select 'award' || s.id, $1, s.id, 'Award ' || s.g, 'Bench award', 'Bench hero', s.g, s.created_at from ${sessions} where s.g between $2 and $3`, params);
    await query(`insert into recap_entries (id, campaign_id, session_id, entry_type, text, speaker, character_name, order_index, created_at)
      select 'quote' || s.id, $1, s.id, 'quote', 'Quote ' || s.g, 'Bench speaker', 'Bench hero', s.g, s.created_at from ${sessions} where s.g between $2 and $3`, params);
  }
}

/** The black-box seed: every character and location created with POST, eight at a time, as an import would. */
async function seedThroughApi(url: string, key: string, campaignId: string, data: ReturnType<typeof generate>) {
  // A minute per POST, not the bench's usual 10 s: a slow create is what this seed is here to
  // report (counted below), not a reason to lose the hour it took.
  const must = mustCaller(localSend(60_000), url, key);
  const slow = { overOneSecond: 0, slowestMs: 0, slowestAt: "", each: [] as string[] };
  const post = async (path: string, body: unknown) => {
    const started = performance.now();
    let id: string;
    try {
      id = String((await must("POST", path, body)).id);
    } catch (error) {
      // Bun's fetch may reject with an empty message (a connection the server closed): name the call.
      throw new Error(`POST ${path} failed after ${Math.round(performance.now() - started)} ms at ${new Date().toISOString()}: ${error instanceof Error ? `${error.name} ${error.message} ${(error as { code?: string }).code ?? ""}` : String(error)}`);
    }
    const took = performance.now() - started;
    if (took > 1000) {
      slow.overOneSecond++;
      // When each began and ended: to be matched against the database's log and the worker's passes.
      if (slow.each.length < 100) slow.each.push(`${new Date(Date.now() - took).toISOString()}–${new Date().toISOString().slice(11)} ${Math.round(took)} ms ${path}`);
    }
    if (took > slow.slowestMs) Object.assign(slow, { slowestMs: Math.round(took), slowestAt: `${new Date().toISOString()} ${path}` });
    return id;
  };
  const inParallel = async <T>(items: T[], work: (item: T) => Promise<void>) => {
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < items.length) await work(items[next++]!);
    }));
  };
  await inParallel(data.characters, async (c) => {
    c.id = await post("/v1/characters", { campaign_id: campaignId, character_name: c.character_name, character_aliases: c.character_aliases, player_name: c.player_name, type: c.type, description: c.description });
  });
  await inParallel(data.locations, async (l) => {
    l.id = await post("/v1/locations", { campaign_id: campaignId, name: l.name, type: l.type, description: l.description });
  });
  const links = Array.from({ length: COUNTS.links }, (_, i) => ({ from: pick(data.characters).id, to: pick(data.locations).id, alias: `link ${i}` }));
  await inParallel(links, async (l) => {
    await post(`/v1/campaigns/${campaignId}/links`, { from_type: "Character", from_id: l.from, to_type: "Location", to_id: l.to, alias: l.alias });
  });
  console.log(`  POSTs over 1 s: ${slow.overOneSecond}; slowest ${slow.slowestMs} ms (${slow.slowestAt})`);
  for (const line of slow.each) console.log(`    ${line}`);
}

/** The bench user and campaign of a database a former run kept (BENCH_REUSE_URL, BENCH_REUSE_DIR). */
async function benchOwner(db: SqlDatabase, what: string) {
  const [row] = await db.query<{ user_id: string; campaign_id: string }>(`select u.id as user_id, c.id as campaign_id from users u join campaigns c on c.owner_id = u.id where u.email = 'bench@example.test' and c.title = 'Search bench'`);
  await db.close();
  if (!row) throw new Error(`${what}: no bench campaign there`);
  return { userId: String(row.user_id), campaignId: String(row.campaign_id) };
}

/** A key for that user: the admin route issues one. */
async function issueKey(url: string, userId: string) {
  const issued = await call(`${url}/internal/v1/users/${userId}/keys`, { method: "POST", headers: { "x-api-key": ADMIN_KEY, "content-type": "application/json" }, body: "{}" });
  if (issued.status !== 201) throw new Error(`issue key: ${issued.status} ${issued.text}`);
  return String(issued.json.key);
}

async function main() {
  let databaseUrl: string | undefined;
  let dataDir: string | undefined;
  // BENCH_REUSE_URL / BENCH_REUSE_DIR: measure (with this commit's code and migrations) what a former run kept, same counts.
  const reusedUrl = process.env.BENCH_REUSE_URL?.trim();
  const reusedDir = process.env.BENCH_REUSE_DIR?.trim();
  if (reusedDir && BACKEND !== "pglite") throw new Error("BENCH_REUSE_DIR is a PGlite data folder: set BENCH_BACKEND=pglite");
  if (reusedUrl && reusedDir) throw new Error("BENCH_REUSE_URL or BENCH_REUSE_DIR, not both");
  if (reusedUrl) assertLocalPostgres("BENCH_REUSE_URL", reusedUrl);
  let owner: { userId: string; campaignId: string } | null = null;
  if (reusedUrl) owner = await benchOwner(openPostgres(reusedUrl, { maxConnections: 1 }), "BENCH_REUSE_URL");
  if (reusedUrl && owner && COUNTS.others) {
    // A seed kept before hero awards and quotes were seeded: add them (the same rows a new seed has).
    const db = openPostgres(reusedUrl, { maxConnections: 1 });
    const [row] = await db.query(`select exists (select 1 from hero_awards where campaign_id = $1) as has`, [owner.campaignId]);
    if (!row?.has) {
      const topUp = performance.now();
      await seedRecaps((sql, params) => db.query(sql, params), owner.campaignId, COUNTS.others);
      await db.query("vacuum analyze hero_awards");
      await db.query("vacuum analyze recap_entries");
      console.log(`added ${COUNTS.others} hero awards and quotes to the reused database in ${((performance.now() - topUp) / 1000).toFixed(1)} s`);
    }
    await db.close();
  }
  if (reusedDir) owner = await benchOwner(await openPglite(join(reusedDir, "pglite")), "BENCH_REUSE_DIR");

  if (BACKEND === "postgres") databaseUrl = reusedUrl ?? (await createScratchDatabase(ADMIN_URL, "cms_bench_search", Boolean(process.env.BENCH_KEEP_DB))).url;
  else if (reusedDir) dataDir = reusedDir;
  else if (process.env.BENCH_KEEP_DIR) {
    const kept = (dataDir = mkdtempSync(join(tmpdir(), "cms-bench-search-kept-")));
    atCleanup(() => console.log(`kept PGlite data folder ${kept} (BENCH_KEEP_DIR; measure it again with BENCH_REUSE_DIR=${kept})`));
  } else dataDir = tempDir("cms-bench-search-");
  const start = () => startService({ name: "service", databaseUrl: databaseUrl ?? null, dataDir, poolSize: POOL_SIZE, logLevel: "warn", echo: true });
  let service: RunningServer = await start();
  if (reusedUrl && BACKEND === "pglite") {
    // A PostgreSQL seed copied into the new folder (made by the service, stopped while it is filled).
    await stopChild(service.child);
    const copyStarted = performance.now();
    // This commit's migrations on the kept database first, as the PostgreSQL reuse does by starting the service on it.
    const source = openPostgres(reusedUrl, { maxConnections: 1 });
    await applyMigrations(source, loadMigrations()).finally(() => source.close());
    await copyPostgresIntoPglite(reusedUrl, join(dataDir!, "pglite"));
    console.log(`copied ${reusedUrl} into PGlite in ${Math.round((performance.now() - copyStarted) / 1000)} s`);
    service = await start();
  }
  const { key, userId } = owner ? { key: await issueKey(service.url, owner.userId), userId: owner.userId } : await createUserWithKey(service.url, "Bench", "bench@example.test");
  const campaignId = owner?.campaignId ?? (await createCampaign(service.url, key, { title: "Search bench" }));
  // The same seeded generator: the same names as the run that seeded (the checks go by name).
  const data = generate(campaignId);

  const started = performance.now();
  if (owner) console.log(`reusing ${reusedUrl ?? reusedDir}`);
  else if (SEED === "api") await seedThroughApi(service.url, key, campaignId, data);
  else if (databaseUrl) {
    const db = openPostgres(databaseUrl, { maxConnections: 2 });
    await seedDirect((sql, params) => db.query(sql, params), campaignId, userId, data);
    await db.close();
  } else {
    // PGlite is one process's database: stop the service, seed its folder, start it again.
    await stopChild(service.child);
    const db: SqlDatabase = await openPglite(join(dataDir!, "pglite")); // where infra/container.ts keeps it
    await seedDirect((sql, params) => db.query(sql, params), campaignId, userId, data);
    await db.close();
    service = await start();
  }
  const seededSeconds = (performance.now() - started) / 1000;
  const url = service.url;
  const get = async (path: string) => {
    const response = await call(`${url}${path}`, { headers: { "x-api-key": key } });
    if (response.status >= 300) throw new Error(`GET ${path}: ${response.status} ${response.text}`);
    return response.json;
  };

  const target = data.characters[Math.min(1234, data.characters.length - 1)]!;
  const { prefix, inside, misspelled, typo } = nameQueries(target.character_name);
  const place = data.locations[Math.min(4321, data.locations.length - 1)]!;
  const rare = data.characters[777 % data.characters.length]!;
  const c = `campaign_id=${campaignId}`;
  const n = COUNTS.others;
  const pcs = data.characters.filter((x) => x.type === "PC").length;
  type Check = (body: any) => boolean;
  const oldest = Math.min(RARE_SESSIONS, n);
  const rareSessions = (is: (row: any) => boolean): Check => (b) =>
    b.total === oldest && b.data.length === Math.min(20, oldest) && b.data.every(is) && b.data.map((r: any) => r.index).join() === Array.from({ length: oldest }, (_, i) => oldest - i).join();
  // Independent of the service: the PCs with a word of their search text starting with the prefix.
  const pcsByPrefix = data.characters.filter((x) => x.type === "PC" && x.search_text.toLowerCase().split(/[^a-z0-9]+/).some((w) => w.startsWith(prefix.toLowerCase()))).length;
  const questMatches = Array.from({ length: n }, (_, i) => String(i + 1)).filter((g) => g.startsWith(QUEST_SEARCH.slice("quest ".length))).length;
  // Independent of the service: the numbers 1..n starting with "12" (the searches' matches), and the
  // newest of them (moments list newest first; awards and quotes by order_index, so "… 12" first).
  const startsWith12 = Array.from({ length: n }, (_, i) => i + 1).filter((g) => String(g).startsWith("12"));
  const newest12 = startsWith12.at(-1);
  // A PGlite folder kept before hero awards and quotes were seeded has none: their scenarios are left out.
  const recapsSeeded = n > 0 && (await get(`/v1/hero-awards?${c}`)).total === n;
  if (n > 0 && !recapsSeeded) console.log("no hero awards and quotes in this database: their search scenarios are left out");
  const names = (body: any): string[] => body.data.map((r: any) => r.character_name ?? r.name);
  const firstPage = (total: number): Check => (body) => body.total === total && body.data.length === Math.min(20, total);
  const finds = (wanted: string): Check => (body) => names(body).includes(wanted);
  const crossFinds = (type: string, wanted: string): Check => (body) => (body[type] ?? []).some((hit: any) => hit.name === wanted || hit.title === wanted);
  const scenarios: { label: string; path: string; check: Check; group: "list" | "search" | "cross" }[] = [
    { group: "list", label: "list characters, first page", path: `/v1/characters?${c}`, check: firstPage(COUNTS.characters) },
    { group: "list", label: "list locations, first page", path: `/v1/locations?${c}`, check: firstPage(COUNTS.locations) },
    { group: "list", label: "list links, first page", path: `/v1/campaigns/${campaignId}/links`, check: firstPage(COUNTS.links) },
    ...(n
      ? ([
          ["factions", `/v1/factions?${c}`],
          ["items", `/v1/items?${c}`],
          ["beats", `/v1/beats?${c}`],
          ["moments", `/v1/moments?${c}`],
          ["quests", `/v1/quests?${c}`],
          ["sessions", `/v1/sessions?${c}`],
        ] as const).map(([kind, path]) => ({ group: "list" as const, label: `list ${kind}, first page`, path, check: firstPage(n) }))
      : []),
    ...(recapsSeeded
      ? [
          { group: "list" as const, label: "list hero awards, first page", path: `/v1/hero-awards?${c}`, check: firstPage(n) },
          { group: "list" as const, label: "list quotes, first page", path: `/v1/quotes?${c}`, check: firstPage(n) },
        ]
      : []),
    // Nine entries in ten are public; the bench user wrote them all, so sees them all.
    ...(n ? [{ group: "list" as const, label: "list journals, first page", path: `/v1/journals?${c}`, check: firstPage(n) }] : []),
    // Filtered first pages: a tenth of the characters, and values no record has (the worst case of a
    // filter applied to the campaign's list in order: every row read to fill nothing).
    { group: "list", label: "list characters, PCs", path: `/v1/characters?${c}&character_type=PC`, check: (b) => b.total === pcs && b.data.length === Math.min(20, pcs) && b.data.every((r: any) => r.type === "PC") },
    { group: "list", label: "list characters, a type none has", path: `/v1/characters?${c}&character_type=Other`, check: (b) => b.total === 0 && b.data.length === 0 },
    { group: "list", label: "list links, a type none has", path: `/v1/campaigns/${campaignId}/links?to_type=Item`, check: (b) => b.total === 0 && b.data.length === 0 },
    ...(n ? [{ group: "list" as const, label: "list quests, status and category none has", path: `/v1/quests?${c}&status=failed&quest_category=personal`, check: (b: any) => b.total === 0 && b.data.length === 0 }] : []),
    // Sessions filtered by a type only the ten oldest have, and public only (the same ten): each
    // keeps its number over the whole campaign (the oldest is 1).
    ...(n
      ? [
          { group: "list" as const, label: "list sessions, rare old type", path: `/v1/sessions?${c}&session_type=chatVoice`, check: rareSessions((r) => r.type === "chatVoice") },
          { group: "list" as const, label: "list sessions, public only", path: `/v1/sessions?${c}&public_only=true`, check: rareSessions((r) => r.public === true) },
        ]
      : []),
    // A filter with a search: the total counts the matches (not the campaign's counters).
    { group: "search", label: "list characters, PCs by prefix", path: `/v1/characters?${c}&character_type=PC&search=${encodeURIComponent(prefix)}`, check: (b) => b.total === pcsByPrefix && b.data.length === Math.min(20, pcsByPrefix) && b.data.every((r: any) => r.type === "PC") },
    ...(n ? [{ group: "search" as const, label: "list quests, search", path: `/v1/quests?${c}&search=${encodeURIComponent(QUEST_SEARCH)}`, check: (b: any) => b.total === questMatches && b.data.length === Math.min(20, questMatches) && b.data[0]?.quest_name === "Quest 12" }] : []),
    ...(n ? [{ group: "search" as const, label: "list moments, search", path: `/v1/moments?${c}&search=${encodeURIComponent(MOMENT_SEARCH)}`, check: (b: any) => b.total === startsWith12.length && b.data.length === Math.min(20, startsWith12.length) && b.data[0]?.label === `Moment ${newest12}` }] : []),
    ...(recapsSeeded
      ? [
          { group: "search" as const, label: "list hero awards, search", path: `/v1/hero-awards?${c}&search=${encodeURIComponent(AWARD_SEARCH)}`, check: (b: any) => b.total === startsWith12.length && b.data.length === Math.min(20, startsWith12.length) && b.data[0]?.title === "Award 12" },
          { group: "search" as const, label: "list quotes, search", path: `/v1/quotes?${c}&search=${encodeURIComponent(QUOTE_SEARCH)}`, check: (b: any) => b.total === startsWith12.length && b.data.length === Math.min(20, startsWith12.length) && b.data[0]?.text === "Quote 12" },
        ]
      : []),
    { group: "search", label: "list characters, exact name", path: `/v1/characters?${c}&search=${encodeURIComponent(target.character_name)}`, check: (b) => names(b)[0] === target.character_name },
    { group: "search", label: "list characters, prefix", path: `/v1/characters?${c}&search=${encodeURIComponent(prefix)}`, check: (b) => names(b).length > 0 && names(b).every((x) => x.toLowerCase().split(/\s+/).some((w) => w.startsWith(prefix.toLowerCase()))) },
    { group: "search", label: "list characters, substring", path: `/v1/characters?${c}&search=${encodeURIComponent(inside)}`, check: (b) => b.data.length > 0 && names(b).some((x) => x.toLowerCase().includes(inside)) },
    { group: "search", label: "list characters, misspelled", path: `/v1/characters?${c}&search=${encodeURIComponent(misspelled)}`, check: finds(target.character_name) },
    { group: "search", label: "list characters, typo (similar names)", path: `/v1/characters?${c}&search=${encodeURIComponent(typo)}`, check: finds(target.character_name) },
    { group: "search", label: "list locations, name", path: `/v1/locations?${c}&search=${encodeURIComponent(place.name)}`, check: (b) => names(b)[0] === place.name },
    { group: "cross", label: "cross-type search, name", path: `/v1/campaigns/${campaignId}/search?q=${encodeURIComponent(target.character_name)}`, check: (b) => b.characters?.[0]?.name === target.character_name },
    { group: "cross", label: "cross-type search, misspelled", path: `/v1/campaigns/${campaignId}/search?q=${encodeURIComponent(misspelled)}`, check: crossFinds("characters", target.character_name) },
    { group: "cross", label: "cross-type search, typo (similar names)", path: `/v1/campaigns/${campaignId}/search?q=${encodeURIComponent(typo)}`, check: crossFinds("characters", target.character_name) },
    { group: "cross", label: "cross-type search, rare word", path: `/v1/campaigns/${campaignId}/search?q=${RARE}`, check: crossFinds("characters", rare.character_name) },
    { group: "cross", label: "cross-type search, word in 1/4", path: `/v1/campaigns/${campaignId}/search?q=${BROAD}`, check: (b) => (b.characters?.length ?? 0) > 0 && (b.locations?.length ?? 0) > 0 },
  ];
  // Each query must find what it looks for before it is timed.
  for (const scenario of scenarios) {
    const body = await get(scenario.path);
    if (!scenario.check(body)) throw new Error(`${scenario.label}: the answer is not what the seed holds: ${JSON.stringify(body).slice(0, 600)}`);
  }
  if (process.env.BENCH_SEED_ONLY) {
    console.log(JSON.stringify({ campaign: campaignId, key, url, target: target.character_name, misspelled, typo, place: place.name }));
    return;
  }

  const results: Record<string, unknown>[] = [];
  let peakRss = rssMiB(service.child.proc.pid) ?? 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(service.child.proc.pid) ?? 0)), 200);
  // CPU per request of the service, its database's backends and the load generator (from /proc, the
  // measured part only): on a shared machine a steadier reading than the latencies.
  if (databaseUrl) countDatabaseAsOurs(new URL(databaseUrl).pathname.slice(1));
  // Rows the database read by sequential scan, per table (PostgreSQL's statistics; the service's
  // backends report theirs within about a second of going idle): a campaign-sized table read whole
  // is what the scenarios must never do. The worker's VACUUM and ANALYZE are not counted here.
  const observer = databaseUrl ? openPostgres(databaseUrl, { maxConnections: 1 }) : null;
  // Tables of 5,000+ rows only: the one campaign's tiny tables (campaigns, keys, counters) are read
  // whole by right, as a planner should.
  const seqReads = async (): Promise<Map<string, number>> =>
    new Map((await observer!.query(`select relname, seq_tup_read::float8 as n from pg_stat_user_tables where n_live_tup >= 5000`)).map((row) => [String(row.relname), Number(row.n)]));
  const readSince = (before: Map<string, number>, after: Map<string, number>) =>
    Object.fromEntries([...after].map(([table, n]) => [table, n - (before.get(table) ?? 0)]).filter(([, n]) => Number(n) >= 1000));
  if (observer) {
    // The seed's records are Ask passages too (80,000 at 10k per kind): a campaign that big has its
    // posting lists packed by the worker within a minute (migration 0037), once, and that pass would
    // land in whichever scenario runs then. Packed here first, as bench/ask.ts does, the run measures
    // the steady state. (PGlite: a copy of a PostgreSQL run's database carries its build along.)
    const packStarted = performance.now();
    const packed = await sqlRecordStore(observer).askIndex.pack(PACK_MIN_PASSAGES, 10);
    if (packed.length) console.log(`packed the Ask posting lists of ${packed.length} campaign(s) in ${((performance.now() - packStarted) / 1000).toFixed(1)} s`);
    // The checks above read once through every scenario: their counts are reported before the run.
    await Bun.sleep(11_000);
  }
  const runStart = observer ? await seqReads() : null;
  for (const scenario of scenarios.filter((s) => !ONLY?.length || ONLY.some((part) => s.label.includes(part)))) {
    const seqBefore = observer ? await seqReads() : null;
    let started: CpuSnapshot | undefined;
    let used: ReturnType<typeof cpuBetween> | undefined;
    const result = await runLoadgen(
      { url: `${url}${scenario.path}`, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, headers: { "x-api-key": key } },
      { onMeasureStart: (pid) => (started = snapshot(service.child.proc.pid, pid)), onResult: (pid) => (used = started && cpuBetween(started, snapshot(service.child.proc.pid, pid))) },
    );
    const perRequest = (ticks: number) => Math.round((ticks * 1000 * 100) / CLK_TCK / Math.max(1, result.requests_total)) / 100;
    const cpu_ms_per_request = used && { server: perRequest(used.server), postgres: perRequest(used.postgres), loadgen: perRequest(used.loadgen), foreign: perRequest(used.foreign) };
    let rows_read_sequentially: Record<string, number> | undefined;
    if (observer && seqBefore) {
      await Bun.sleep(1500);
      rows_read_sequentially = readSince(seqBefore, await seqReads());
    }
    results.push({ scenario: scenario.label, group: scenario.group, path: scenario.path.replaceAll(campaignId, "{campaign_id}"), ...result, cpu_ms_per_request, rows_read_sequentially });
    console.log(
      `${scenario.label.padEnd(34)} ${String(result.requests_per_s).padStart(8)} req/s  p50 ${String(result.latency_ms.p50).padStart(6)} ms  p99 ${String(result.latency_ms.p99).padStart(6)} ms  max ${String(result.latency_ms.max).padStart(6)} ms  non-2xx ${result.non2xx}` +
        (cpu_ms_per_request ? `  CPU ms/request: server ${cpu_ms_per_request.server}, postgres ${cpu_ms_per_request.postgres}, loadgen ${cpu_ms_per_request.loadgen} (others' ${cpu_ms_per_request.foreign})` : "") +
        (rows_read_sequentially && Object.keys(rows_read_sequentially).length ? `  SEQUENTIAL READS: ${JSON.stringify(rows_read_sequentially)}` : ""),
    );
  }
  clearInterval(sampler);
  let rowsReadSequentially: Record<string, number> | undefined;
  if (observer && runStart) {
    // An idle backend reports its last counts within PGSTAT_IDLE_INTERVAL (10 s).
    await Bun.sleep(11_000);
    rowsReadSequentially = readSince(runStart, await seqReads());
    console.log(`rows read by sequential scan during the run (tables of 5,000+ rows, 1,000+ read): ${JSON.stringify(rowsReadSequentially)}`);
    await observer.close();
  }
  const limit = (group: string) => (group === "cross" ? 50 : 25);
  const report = {
    date: new Date().toISOString(),
    commit: Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim(),
    backend: BACKEND,
    seed: SEED,
    connections: CONNECTIONS,
    pool_size: POOL_SIZE,
    duration_s: DURATION,
    seeded: { ...COUNTS, seconds: Math.round(seededSeconds * 10) / 10 },
    server_peak_rss_mib: peakRss,
    rows_read_sequentially: rowsReadSequentially,
    target: BACKEND === "postgres" ? "p99 ≤ 25 ms (lists, name search), ≤ 50 ms (cross-type), 16 connections; RSS < 300 MB" : "every answer under 500 ms",
    met:
      results.every((r: any) => r.non2xx === 0 && (BACKEND === "postgres" ? r.latency_ms.p99 <= limit(r.group) : r.latency_ms.max <= 500)) && peakRss < 300,
    results,
  };
  const file = env("BENCH_RESULTS", `search-${BACKEND}-${SEED}-${COUNTS.characters}.json`);
  writeResults(file, report, false);
  console.log(`seeded ${JSON.stringify(COUNTS)} in ${report.seeded.seconds} s; server peak RSS ${peakRss} MiB; target met: ${report.met} (bench/results/${file})`);
}

await runBench(main, intEnv("BENCH_TIME_LIMIT", 3600, 30, 7200));
