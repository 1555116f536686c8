// Recap cards (hero awards, quotes, spotlights): wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as recaps from "../../application/recaps.ts";
import { ok } from "../../domain/errors.ts";
import { HERO_AWARD_DEFAULTS } from "../../domain/recaps.ts";
import { defineOperation, defineOperations, RawResponse, type Operation } from "./operation.ts";
import { byBodySession, byCampaignOrSession, plainRows } from "./crud.ts";
import { Id, literals, Nullable, PageOf, PageQuery, Timestamp } from "./common.ts";

const Theme = Nullable(Type.Record(Type.String(), Type.Unknown()));

export const HeroAward = Type.Object(
  {
    id: Id(),
    campaign_id: Id(),
    session_id: Id(),
    title: Type.String(),
    description: Type.String(),
    character_name: Type.String(),
    player_name: Nullable(Type.String()),
    tone_mode: Type.String(),
    award_mode: Type.String(),
    style: Type.String(),
    variant: Type.String(),
    custom_theme: Theme,
    order_index: Type.Integer(),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "HeroAward" },
);

const awardFields = {
  character_name: Type.String({ maxLength: 200 }),
  player_name: Nullable(Type.String({ maxLength: 200 })),
  tone_mode: Type.String({ maxLength: 64, description: `Default ${HERO_AWARD_DEFAULTS.tone_mode}` }),
  award_mode: literals(["moment", "theme"] as const),
  style: Type.String({ maxLength: 64, description: "verdant (default), ember, arcane, frost, gilded" }),
  variant: Type.String({ maxLength: 64, description: "square (default, 1080×1080) or portrait (1080×1350)" }),
  custom_theme: { ...Theme, description: "Colors: background, accent, text (#hex)" },
  order_index: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
};

export const HeroAwardCreate = Type.Object(
  {
    session_id: Id("Session id"),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.String({ minLength: 1, maxLength: 4000 }),
    ...Type.Partial(Type.Object(awardFields)).properties,
  },
  { title: "HeroAwardCreate" },
);
export const HeroAwardUpdate = Type.Partial(
  Type.Object({ title: Type.String({ minLength: 1, maxLength: 200 }), description: Type.String({ minLength: 1, maxLength: 4000 }), ...awardFields }),
  { title: "HeroAwardUpdate" },
);

const recapCommon = {
  id: Id(),
  campaign_id: Id(),
  session_id: Id(),
  character_name: Nullable(Type.String()),
  style: Nullable(Type.String()),
  custom_theme: Theme,
  order_index: Type.Integer(),
  pipeline_id: Nullable(Id()),
  recap_set_id: Nullable(Id()),
  created_at: Timestamp,
  updated_at: Nullable(Timestamp),
};

export const Quote = Type.Object({ ...recapCommon, text: Nullable(Type.String()), speaker: Nullable(Type.String()), context: Nullable(Type.String()) }, { title: "Quote" });
export const Spotlight = Type.Object(
  { ...recapCommon, title: Nullable(Type.String()), description: Nullable(Type.String()), player_name: Nullable(Type.String()), entry_type: Type.Literal("spotlight"), source_moment_id: Nullable(Id()) },
  { title: "Spotlight" },
);

const quoteFields = {
  speaker: Nullable(Type.String({ maxLength: 200 })),
  character_name: Nullable(Type.String({ maxLength: 200 })),
  context: Nullable(Type.String({ maxLength: 2000 })),
  style: Nullable(Type.String({ maxLength: 64 })),
  custom_theme: Theme,
  order_index: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
};
export const QuoteCreate = Type.Object(
  { session_id: Id("Session id"), text: Type.String({ minLength: 1, maxLength: 8000 }), ...Type.Partial(Type.Object(quoteFields)).properties },
  { title: "QuoteCreate" },
);
export const QuoteUpdate = Type.Partial(Type.Object({ text: Type.String({ minLength: 1, maxLength: 8000 }), ...quoteFields }), { title: "QuoteUpdate" });

const spotlightFields = {
  description: Nullable(Type.String({ maxLength: 4000 })),
  character_name: Nullable(Type.String({ maxLength: 200 })),
  player_name: Nullable(Type.String({ maxLength: 200 })),
  style: Nullable(Type.String({ maxLength: 64 })),
  custom_theme: Theme,
  order_index: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  source_moment_id: Nullable(Id("A moment of the same campaign")),
};
export const SpotlightCreate = Type.Object(
  { session_id: Id("Session id"), title: Type.String({ minLength: 1, maxLength: 200 }), ...Type.Partial(Type.Object(spotlightFields)).properties },
  { title: "SpotlightCreate" },
);
export const SpotlightUpdate = Type.Partial(Type.Object({ title: Type.String({ minLength: 1, maxLength: 200 }), ...spotlightFields }), { title: "SpotlightUpdate" });

export const RecapListQuery = Type.Object({
  campaign_id: Type.Optional(Id("Campaign id (or give session_id)")),
  session_id: Type.Optional(Id()),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  ...PageQuery,
});

const award = plainRows({ name: "HeroAward", tag: "Recap cards", record: "hero_awards", readScope: "sessions_read", idName: "award_id" });
const awardOperations: Operation[] = [
  award.list({
    description: "Hero awards of a campaign or a session (one of the two is required), in card order.",
    campaign: byCampaignOrSession,
    input: { query: RecapListQuery },
    output: PageOf(HeroAward, "HeroAwardPage"),
    run: ({ deps, caller, access }, { query }) => recaps.listHeroAwards(deps, caller, access, query),
  }),
  award.create({
    description: "Creates a hero award card for a session. The card image is rendered by the service (GET /v1/hero-awards/{award_id}/card.png) and redrawn whenever the award changes.",
    campaign: byBodySession,
    input: { body: HeroAwardCreate },
    output: HeroAward,
    run: ({ deps, caller, access }, { body }) => recaps.createHeroAward(deps, caller, access, body),
  }),
  award.get({ description: "Reads one hero award.", output: HeroAward, use: recaps.getHeroAward }),
  defineOperation({
    id: "getHeroAwardCard",
    summary: "Hero award card image",
    description: "The award's card as a PNG (1080×1080, or 1080×1350 for the portrait variant).",
    tag: "Recap cards",
    access: { auth: "campaign", level: "read", scope: "sessions_read", campaign: ({ path }) => ({ record: "hero_awards", id: path.award_id, notFound: "Hero award not found" }) },
    http: { method: "GET", path: "/v1/hero-awards/{award_id}/card.png", status: 200 },
    input: { path: Type.Object({ award_id: Id("Hero award id") }) },
    run: async ({ deps, caller, access }, { path }) => {
      const card = await recaps.heroAwardCard(deps, caller, access, path.award_id);
      return card.ok ? ok(new RawResponse("image/png", card.value)) : card;
    },
  }),
  award.update({ description: "Changes the fields sent; the card is redrawn.", body: HeroAwardUpdate, output: HeroAward, use: recaps.updateHeroAward }),
  award.remove({ description: "Deletes a hero award and its card.", use: recaps.deleteHeroAward }),
];

const entryOperations = (type: recaps.EntryType): Operation[] => {
  const rows = plainRows({ name: type === "quote" ? "Quote" : "Spotlight", tag: "Recap cards", record: type === "quote" ? "quotes" : "spotlights", readScope: "sessions_read" });
  const output = type === "quote" ? Quote : Spotlight;
  const about =
    type === "quote"
      ? "A memorable line of a session. Creating one finds or creates the session's recap pipeline (source api)."
      : "A recap card about a session (distinct from a handout's character spotlights). Creating one finds or creates the session's recap pipeline (source api); lists show spotlights only.";
  return [
    rows.list({
      description: `${about} Needs campaign_id or session_id.`,
      campaign: byCampaignOrSession,
      input: { query: RecapListQuery },
      output: PageOf(output, type === "quote" ? "QuotePage" : "SpotlightPage"),
      run: ({ deps, caller, access }, { query }) => recaps.listEntries(deps, caller, access, type, query),
    }),
    rows.create({
      description: about,
      campaign: byBodySession,
      input: { body: type === "quote" ? QuoteCreate : SpotlightCreate },
      output,
      run: ({ deps, caller, access }, { body }) => recaps.createEntry(deps, caller, access, type, body),
    }),
    rows.get({ description: `Reads one ${type}.`, output, use: (deps, caller, access, id) => recaps.getEntry(deps, caller, access, type, id) }),
    rows.update({ description: `Changes the fields sent of a ${type}.`, body: type === "quote" ? QuoteUpdate : SpotlightUpdate, output, use: (deps, caller, access, id, patch) => recaps.updateEntry(deps, caller, access, type, id, patch) }),
    rows.remove({ description: `Deletes a ${type}.`, use: (deps, caller, access, id) => recaps.deleteEntry(deps, caller, access, type, id) }),
  ];
};

export const recapOperations = defineOperations({ publishedAt: 140 }, [
  ...awardOperations,
  ...entryOperations("quote"),
  ...entryOperations("spotlight"),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    recaps: typeof recapOperations;
  }
}
