// EXPLAIN (ANALYZE, BUFFERS) of the statements behind the issue 15 search scenarios (and the plain first pages of characters, locations and links), on a kept bench
// database: EXPLAIN_URL=postgres://…/<kept db> EXPLAIN_CAMPAIGN=<id> bun bench/explain-search.ts [name] [place]
// Each statement runs twice; the second (warm) plan is printed. Nothing is written.
// The statements inside the search functions (migrations 0026, 0028: a plan of the call shows only
// a Function Scan) are printed after it, as auto_explain reports them (needs a superuser, as the
// local server's postgres is).
import postgres from "postgres";
import type { Row, SqlExecutor } from "../adapters/sql/database.ts";
import { sqlRecordStore } from "../adapters/sql/records.ts";
import { nameQueries } from "./lib/search-queries.ts";

const url = process.env.EXPLAIN_URL!;
const campaign = process.env.EXPLAIN_CAMPAIGN!;
const [name = "Radrabel Thorlasqua", place = "Beldra Branomlas"] = process.argv.slice(2);
let nested: string[] | null = null;
const sql = postgres(url, { max: 1, onnotice: (notice) => nested?.push(String(notice.message)) });
const db = {
  query: async (text: string, params: unknown[] = []) => (await sql.unsafe(text, params as never[], { prepare: true })) as unknown as Row[],
};
await sql.unsafe(`load 'auto_explain'`);
for (const setting of ["log_min_duration = 0", "log_nested_statements = on", "log_analyze = on", "log_buffers = on", "log_level = notice"])
  await sql.unsafe(`set auto_explain.${setting}`);
const only = process.env.EXPLAIN_ONLY;

const explaining = (label: string): SqlExecutor => ({
  async query(text: string, params: unknown[] = []): Promise<Row[]> {
    if (!/^\s*(select|with)\b/i.test(text) || (only && !label.includes(only))) return db.query(text, params);
    await db.query(`explain (analyze) ${text}`, params);
    nested = [];
    const plan = await db.query(`explain (analyze, buffers) ${text}`, params);
    // auto_explain also reports the explained statement itself: only the ones inside are printed.
    const inside = nested.filter((n) => !/Query Text: explain/i.test(n));
    nested = null;
    console.log(`\n### ${label}\n${plan.map((r) => String(r["QUERY PLAN"])).join("\n")}`);
    for (const n of inside) console.log(`\n  (inside) ${n.replaceAll("\n", "\n  ")}`);
    return db.query(text, params);
  },
}) as SqlExecutor;

const page = { page: 1, size: 20 };
const { prefix, inside, misspelled, typo } = nameQueries(name);
const store = (label: string) => sqlRecordStore(explaining(label) as never);
// The plain first pages the API-seeded run measures (characters as the bench's viewer sees them, the owner).
await store("list characters, first page").characters.list(campaign, { approvedOnly: true }, page);
await store("list locations, first page").entities.list(campaign, "location", {}, page);
const [owner] = await db.query(`select owner_id from campaigns where id = $1`, [campaign]);
await store("list links, first page").links.list(campaign, {}, page, String(owner?.owner_id));
await store("list characters, exact name").characters.list(campaign, { approvedOnly: true, search: name }, page);
await store("list characters, prefix").characters.list(campaign, { approvedOnly: true, search: prefix }, page);
await store("list characters, substring").characters.list(campaign, { approvedOnly: true, search: inside }, page);
await store("list characters, misspelled").characters.list(campaign, { approvedOnly: true, search: misspelled }, page);
await store("list characters, typo").characters.list(campaign, { approvedOnly: true, search: typo }, page);
await store("list locations, name").entities.list(campaign, "location", { search: place }, page);
// The filtered session pages (the seed's ten oldest are its voice-chat and public ones) and filters with a search.
await store("list sessions, rare old type").sessions.list(campaign, { type: "chatVoice" }, page);
await store("list sessions, public only").sessions.list(campaign, { publicOnly: true }, page);
await store("list characters, PCs by prefix").characters.list(campaign, { approvedOnly: true, type: "PC", search: prefix }, page);
await store("list quests, search").quests.list(campaign, { search: "quest 12" }, page);
const types = ["characters", "factions", "locations", "items", "sessions", "beats", "moments", "quests", "journals"];
for (const [label, q] of [["name", name], ["misspelled", misspelled], ["typo", typo], ["rare word", "quillbrook"], ["word in 1/4", "wayfarer"]])
  await store(`cross-type search, ${label}`).search.search(campaign, q!, types, 10, "nobody");
await sql.end({ timeout: 5 });
