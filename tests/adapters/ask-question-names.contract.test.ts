// Issue 15 (migration 0049): Ask's question analysis finds the records a question names by key —
// each name's English lexemes with their places — and a misspelling through the lists' nearest
// words, instead of reading every name of the campaign (1.7 s a question at 10k records per kind).
// The names found are the ones the former full read found; the statement reads no table whole.
import { expect, test } from "bun:test";
import type { SqlExecutor } from "../../adapters/sql/database.ts";
import { sqlRetriever } from "../../adapters/sql/retrieval.ts";
import { forEachBackend } from "../support/backends.ts";
import { inProcessOn, type InProcessService } from "../support/inprocess.ts";
import { capturingExecutor, planNodes, type PlanNode } from "../support/plans.ts";

// The former statement (before 0049): every name of the campaign read and matched against the question.
const NAMED_BY_FULL_READ = `
  with qv as (select to_tsvector('english', $2) as v),
       words as (select distinct w from unnest(regexp_split_to_array(lower($2), '[^[:alnum:]]+')) w where length(w) >= 5),
       names as (
         select c.id, n from characters c, unnest(array[c.character_name, c.player_name] || ask_json_list(c.character_aliases)) n where c.campaign_id = $1 and n <> ''
         union all
         select e.id, n from entities e, unnest(array[e.name] || ask_json_list(e.aliases)) n where e.campaign_id = $1),
       exact as (select distinct names.id from names, qv where qv.v @@ phraseto_tsquery('english', names.n)),
       fuzzy as (select distinct names.id from names, unnest(regexp_split_to_array(lower(names.n), '[^[:alnum:]]+')) nw, words w
                 where length(nw) >= 5 and w.w <> nw and similarity(w.w, nw) >= 0.4)
  select coalesce(array_agg(id order by id), '{}') as ids from (select id from exact union select id from fuzzy) x`;

await forEachBackend("Ask question names", (backend) => {
  let service: InProcessService;
  let campaignId = "";
  let otherCampaignId = "";
  const ids: Record<string, string> = {};
  let gmKey = "";

  inProcessOn(backend, async (made) => {
    service = made;
    const gm = await service.newUser("gm", `gm.${crypto.randomUUID().slice(0, 6)}@example.test`);
    gmKey = gm.key;
    const post = (path: string, body: unknown) => service.post(path, body, gm.key);
    campaignId = (await post("/v1/campaigns", { title: "Names at scale" })).id;
    otherCampaignId = (await post("/v1/campaigns", { title: "Another table" })).id;
    ids.ellia = (await post("/v1/characters", { campaign_id: campaignId, character_name: "Ellia Razan", player_name: "Marisha Ray", character_aliases: ["The Grey Lady"] })).id;
    ids.elliaMoor = (await post("/v1/characters", { campaign_id: campaignId, character_name: "Ellia Moor" })).id;
    ids.razanStone = (await post("/v1/characters", { campaign_id: campaignId, character_name: "Stone Razan" })).id;
    ids.faction = (await post("/v1/factions", { campaign_id: campaignId, name: "The Faction of Ash" })).id;
    ids.kraghammer = (await post("/v1/locations", { campaign_id: campaignId, name: "Kraghammer", aliases: ["Dwarf Hold"] })).id;
    ids.blade = (await post("/v1/items", { campaign_id: campaignId, name: "Blade of the Winter Court" })).id;
    // Names sharing words with the others, which no question below names.
    for (let i = 0; i < 30; i++) await post("/v1/characters", { campaign_id: campaignId, character_name: `Ellia Quill${String.fromCharCode(97 + i % 26)}${i}` });
    for (let i = 0; i < 3; i++)
      await service.call("POST", "/internal/v1/sessions", service.adminKey, { campaign_id: campaignId, type: "chatVoice", title: `Night ${i + 1}`, session_date: `2016-05-${10 + i}T19:00:00Z` });
    // The same name in another campaign is not this campaign's.
    ids.otherEllia = (await post("/v1/characters", { campaign_id: otherCampaignId, character_name: "Ellia Razan" })).id;
  });

  /** The entity ids the analysis hands the scoring statement ($8 of the lexical pass). */
  async function named(text: string): Promise<string[]> {
    const { executor, statements } = capturingExecutor(service.db);
    await sqlRetriever(executor).retrieve({ campaignId, text, journals: { all: true }, limit: 5 });
    const scoring = statements.find((s) => /is_entity/.test(s.sql))!;
    expect(scoring).toBeDefined();
    return [...(scoring.params[7] as string[])].sort();
  }
  const fullRead = async (text: string): Promise<string[]> => (await service.db.query(NAMED_BY_FULL_READ, [campaignId, text]))[0]!.ids as string[];

  const questions: [string, string[]][] = [
    ["What did Ellia Razan say about the Faction of Ash?", ["ellia", "faction"]],
    ["Is Marisha Ray playing tonight?", ["ellia"]],
    ["Who is the grey lady?", ["ellia"]],
    ["Where is Kragamer?", ["kraghammer"]],
    ["Who holds the blade of the winter court?", ["blade"]],
    ["Did the party reach the dwarf hold?", ["kraghammer"]],
    ["What happened with the dragon?", []],
  ];

  test("each question names the records whose names it holds as a phrase, or misspells; the same ones the full read finds", async () => {
    for (const [text, expected] of questions) {
      const found = await named(text);
      expect({ text, found }).toEqual({ text, found: expected.map((k) => ids[k]!).sort() });
      expect({ text, found }).toEqual({ text, found: await fullRead(text) });
    }
  });

  test("a long follow-up names what it names anywhere; only its first 24 long words are read for misspellings", async () => {
    const filler = Array.from({ length: 30 }, (_, i) => `wordy${String.fromCharCode(97 + (i % 26))}${i}`).join(" ");
    expect(await named(`${filler} and then Ellia Razan came back`)).toEqual([ids.ellia!]);
    expect(await named(`Kragamer ${filler}`)).toEqual([ids.kraghammer!]);
    expect(await named(`${filler} Kragamer`)).toEqual([]);
  });

  test("a name's words apart or in another order do not name it; a rename and a delete are followed", async () => {
    expect(await named("Razan met Ellia at the ash faction")).toEqual([]);
    const renamed = await service.call("PATCH", `/v1/characters/${ids.elliaMoor}`, gmKey, { character_name: "Ellia Thornwood" });
    expect(renamed.body.character_name).toBe("Ellia Thornwood");
    expect(await named("Where did Ellia Thornwood go?")).toEqual([ids.elliaMoor!]);
    expect(await named("Where did Ellia Moor go?")).toEqual([]);
    expect((await service.call("DELETE", `/v1/locations/${ids.kraghammer}`, gmKey)).status).toBe(204);
    expect(await named("Did the party reach the dwarf hold?")).toEqual([]);
  });

  test("planned as at scale, the analysis reads the names' key indexes and no table whole", async () => {
    const { executor, statements } = capturingExecutor(service.db);
    await sqlRetriever(executor).retrieve({ campaignId, text: "What did Ellia Razan say about the Faction of Ash in session 2?", journals: { all: true }, limit: 5 });
    const analysis = statements.find((s) => /as entity_ids/.test(s.sql))!;
    expect(analysis).toBeDefined();
    const rollback = new Error("rollback");
    let plan: PlanNode | undefined;
    await service.db
      .transaction(async (tx: SqlExecutor) => {
        for (const table of ["characters", "entities", "sessions", "search_terms", "search_vocabulary"]) {
          await tx.query(`analyze ${table}`);
          // One page of 500k rows: the planner scales reltuples / relpages by the file's real size.
          await tx.query(`update pg_class set reltuples = 500000, relpages = 1 where oid = '${table}'::regclass or oid in (select indexrelid from pg_index where indrelid = '${table}'::regclass)`);
        }
        const [row] = await tx.query(`explain (format json) ${analysis.sql}`, analysis.params);
        plan = (row!["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
        throw rollback;
      }, { retry: false })
      .catch((error) => {
        if (error !== rollback) throw error;
      });
    const nodes = planNodes(plan!);
    const wholeReads = nodes.filter((n) => n["Node Type"] === "Seq Scan" && ["characters", "entities", "sessions"].includes(n["Relation Name"] ?? ""));
    expect(wholeReads.map((n) => [n["Relation Name"], JSON.stringify(n).slice(0, 400)])).toEqual([]);
    const keyIndexes = nodes.filter((n) => /_ask_names$/.test(n["Index Name"] ?? "")).map((n) => n["Index Name"]).sort();
    expect(keyIndexes).toEqual(["characters_ask_names", "entities_ask_names"]);
  });
});
