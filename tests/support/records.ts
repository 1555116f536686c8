// Records for the record-port contract suites: builders with sensible defaults, fast-check
// arbitraries for the fields that vary, and the harness that runs a suite on every backend.
import { afterAll, beforeAll, expect } from "bun:test";
import fc from "fast-check";
import { sqlRecordStore } from "../../adapters/sql/records.ts";
import { uuidV7 } from "../../adapters/system/system.ts";
import type { Campaign } from "../../domain/campaign.ts";
import type { Character } from "../../domain/characters.ts";
import type { Beat } from "../../domain/beats.ts";
import type { Moment } from "../../domain/moments.ts";
import type { HeroAward, RecapEntry } from "../../domain/recaps.ts";
import type { Handout, Session, SessionArtifact } from "../../domain/sessions.ts";
import type { StoredUtterance, TranscriptRecord } from "../../domain/transcripts.ts";
import type { RecordStore, Stored } from "../../ports/records.ts";
import { forEachBackend, type Backend } from "./backends.ts";

export const newId = () => uuidV7.next();

/** A fixed instant plus an offset, so expected timestamps are written out, not read back. */
export const at = (offsetMs = 0) => new Date(Date.UTC(2026, 0, 1) + offsetMs).toISOString();

/** Text PostgreSQL stores as given: no NUL, well-formed Unicode. */
export const storableText = (maxLength = 40) => fc.string({ unit: "grapheme", maxLength }).filter((s) => !s.includes("\u0000"));
/** JSON objects as a jsonb column keeps them (no NUL; numbers that survive a round trip). */
export const jsonObject = fc.dictionary(
  fc.string({ maxLength: 8 }).filter((s) => !s.includes("\u0000")),
  fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), storableText(), fc.array(fc.integer(), { maxLength: 3 })),
  { maxKeys: 4 },
);

export const campaignRecord = (owner: string, extra: Partial<Campaign> = {}): Campaign => ({
  id: newId(),
  title: "Contract campaign",
  description: null,
  system: null,
  summary: null,
  language: "en",
  image: null,
  public: false,
  mature: false,
  owner_id: owner,
  archived: false,
  archived_at: null,
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const sessionRecord = (campaignId: string, extra: Partial<Session> = {}): Session => ({
  id: newId(),
  campaign_id: campaignId,
  type: "chatVoice",
  title: "Session",
  summary: null,
  notes: null,
  session_date: at(),
  image: null,
  public: false,
  pbp_start_msg_url: null,
  pbp_end_msg_url: null,
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const transcriptRecord = (session: Session, extra: Partial<TranscriptRecord> = {}): TranscriptRecord => ({
  session_id: session.id,
  campaign_id: session.campaign_id,
  version: 1,
  source_type: "plain",
  speakers: ["Matt", "Laura"],
  utterance_count: 2,
  char_count: 40,
  tokens: 10,
  created_at: at(),
  ...extra,
});

/** The fields of a transcript record that vary. */
export const transcriptFields = fc.record({
  version: fc.integer({ min: 1, max: 1000 }),
  source_type: fc.constantFrom("plain", "vtt", "srt", "crd3"),
  speakers: fc.uniqueArray(storableText(12), { maxLength: 5 }),
  utterance_count: fc.nat(100_000),
  char_count: fc.nat(10_000_000),
  tokens: fc.nat(3_000_000),
});

/** Utterances numbered from 0, with times that never go backwards. */
export const utterances = (maxLength = 30) =>
  fc
    .array(fc.record({ speaker_label: storableText(12), text: storableText(80), duration: fc.integer({ min: 0, max: 30_000 }) }), { maxLength })
    .map((items) => {
      let clock = 0;
      return items.map(({ speaker_label, text, duration }, position): StoredUtterance => {
        const start_s = clock / 1000;
        clock += duration;
        return { position, speaker_label, text, start_s, end_s: clock / 1000 };
      });
    });

export const artifactRecord = <T>(session: Session, body: T, extra: Partial<SessionArtifact<T>> = {}): SessionArtifact<T> => ({
  id: newId(),
  session_id: session.id,
  campaign_id: session.campaign_id,
  body,
  source: "import",
  pdf_saved_at: null,
  pdf_page_count: null,
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const handoutBody = fc.record({
  summary: storableText(),
  sessionOutline: fc.oneof(storableText(), fc.array(fc.record({ title: storableText() }), { maxLength: 3 })),
  encounters: fc.array(fc.record({ title: storableText(), bullets: fc.array(storableText(), { maxLength: 3 }) }), { maxLength: 3 }),
  characterSpotlight: fc.array(fc.record({ name: storableText(), description: storableText(), bullets: fc.array(storableText(), { maxLength: 2 }) }), { maxLength: 2 }),
  otherEntitySpotlight: fc.array(fc.record({ name: storableText(), description: storableText() }), { maxLength: 2 }),
  items: fc.array(fc.record({ name: storableText(), description: storableText() }), { maxLength: 2 }),
  valuableInformation: fc.array(fc.record({ info: storableText() }), { maxLength: 2 }),
  partyStatusAndNextSteps: fc.record({ partyStatus: fc.record({ summary: storableText(), bullets: fc.array(storableText(), { maxLength: 2 }) }), nextSteps: fc.record({ summary: storableText() }) }),
  moments: fc.array(fc.record({ label: storableText(), content: storableText() }), { maxLength: 2 }),
}) satisfies fc.Arbitrary<Handout>;

export const characterRecord = (campaignId: string, extra: Partial<Character> = {}): Character => ({
  id: newId(),
  campaign_id: campaignId,
  character_name: "A character",
  character_aliases: [],
  player_name: null,
  player_handle: null,
  speaker_id: null,
  description: null,
  backstory: null,
  type: "NPC",
  image: null,
  tcg_image: null,
  approved: true,
  merge: false,
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const beatRecord = (campaignId: string, extra: Partial<Beat> = {}): Beat => ({
  id: newId(),
  campaign_id: campaignId,
  label: "A beat",
  type: "major",
  description: null,
  index: 0,
  parent_id: null,
  metadata: null,
  game_session_ids: [],
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const beatFields = fc.record({
  label: storableText().filter((s) => s.trim().length > 0),
  type: fc.constantFrom("major", "minor", "step") as fc.Arbitrary<Beat["type"]>,
  description: fc.option(storableText(200), { nil: null }),
  index: fc.nat(1000),
  metadata: fc.option(jsonObject, { nil: null }),
});

export const momentRecord = (campaignId: string, extra: Partial<Moment> = {}): Moment => ({
  id: newId(),
  campaign_id: campaignId,
  session_id: null,
  label: "A moment",
  content: null,
  image: null,
  index: null,
  categories: [],
  kind: "moment",
  metadata: null,
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const momentFields = fc.record({
  label: fc.option(storableText(), { nil: null }),
  content: fc.option(storableText(200), { nil: null }),
  index: fc.option(fc.nat(1000), { nil: null }),
  categories: fc.uniqueArray(fc.constantFrom("key-moment", "combat", "roleplay", "lore"), { maxLength: 3 }),
  kind: fc.constantFrom("moment", "keyMoment"),
  metadata: fc.option(jsonObject, { nil: null }),
});

export const heroAwardRecord = (session: Session, extra: Partial<HeroAward> = {}): HeroAward => ({
  id: newId(),
  campaign_id: session.campaign_id,
  session_id: session.id,
  title: "Bravest",
  description: "Held the door.",
  character_name: "Grog",
  player_name: null,
  tone_mode: "heroic",
  award_mode: "standard",
  style: "classic",
  variant: "default",
  custom_theme: null,
  order_index: 0,
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const heroAwardFields = fc.record({
  title: storableText().filter((s) => s.trim().length > 0),
  description: storableText(200),
  character_name: storableText(),
  player_name: fc.option(storableText(), { nil: null }),
  custom_theme: fc.option(jsonObject, { nil: null }),
  order_index: fc.nat(100),
});

export const recapEntryRecord = (session: Session, entry_type: RecapEntry["entry_type"], extra: Partial<RecapEntry> = {}): RecapEntry => ({
  id: newId(),
  campaign_id: session.campaign_id,
  session_id: session.id,
  entry_type,
  pipeline_id: null,
  recap_set_id: null,
  text: entry_type === "quote" ? "Is it a mimic?" : null,
  speaker: null,
  character_name: null,
  context: null,
  title: entry_type === "spotlight" ? "Scanlan's song" : null,
  description: null,
  player_name: null,
  style: null,
  custom_theme: null,
  order_index: 0,
  source_moment_id: null,
  created_at: at(),
  updated_at: null,
  ...extra,
});

export const recapEntryFields = fc.record({
  text: fc.option(storableText(200), { nil: null }),
  speaker: fc.option(storableText(), { nil: null }),
  character_name: fc.option(storableText(), { nil: null }),
  context: fc.option(storableText(), { nil: null }),
  title: fc.option(storableText(), { nil: null }),
  description: fc.option(storableText(200), { nil: null }),
  player_name: fc.option(storableText(), { nil: null }),
  style: fc.option(fc.constantFrom("classic", "parchment"), { nil: null }),
  custom_theme: fc.option(jsonObject, { nil: null }),
  order_index: fc.nat(100),
});

export interface ContractWorld {
  store: RecordStore;
  backend: Backend;
  /** A user who owns `campaign`. */
  owner: string;
  campaign: Campaign;
  /** A fresh session of `campaign` (or of another campaign), inserted. */
  session(campaignId?: string, extra?: Partial<Session>): Promise<Session>;
  /** Another campaign of the same owner, inserted. */
  otherCampaign(): Promise<Campaign>;
}

/**
 * Runs `suite` once per record backend on a fresh migrated database, with a user, a campaign and
 * helpers; a backend that cannot run here is announced, never silently left out.
 */
export async function contractSuite(port: string, suite: (world: () => ContractWorld) => void) {
  await forEachBackend(`${port} contract`, (backend) => {
    let world: ContractWorld;
    let close: () => Promise<void>;
    beforeAll(async () => {
      const opened = await backend.open();
      close = opened.close;
      const store = sqlRecordStore(opened.db);
      const owner = (await store.users.insert({ id: newId(), name: "Owner", email: `owner.${newId()}@example.test`, role: "user", created_at: at() }))!.id;
      const campaign = campaignRecord(owner);
      await store.campaigns.insert(campaign);
      world = {
        store,
        backend,
        owner,
        campaign,
        async session(campaignId = campaign.id, extra = {}) {
          const session = sessionRecord(campaignId, extra);
          await store.sessions.insert(session);
          return session;
        },
        async otherCampaign() {
          const other = campaignRecord(owner, { title: "Another campaign" });
          await store.campaigns.insert(other);
          return other;
        },
      };
    });
    afterAll(async () => close?.());
    suite(() => world);
  });
}

/** Property runs against a database: enough to find shape problems, few enough to stay quick. */
export const DB_RUNS = { numRuns: 25 };

/** Every field round-trips: `record` inserted reads back equal, and so does `replaced` written over it. */
export async function expectRoundTrip<T extends { id: string }>(repository: Stored<T>, record: T, replaced: T): Promise<void> {
  await repository.insert(record);
  expect(await repository.get(record.id)).toEqual(record);
  await repository.replace(replaced);
  expect(await repository.get(record.id)).toEqual(replaced);
}
