// Wire schemas (TypeBox = JSON Schema). Shared by validation, OpenAPI and MCP tool listings.
// This file: the builders and texts every kind's file uses; each kind's schemas live with its operations.
import { FormatRegistry, OptionalKind, Type, type TSchema } from "@sinclair/typebox";
import { invalidField, type Failure } from "../../domain/errors.ts";
import { IMAGE_URL_PATTERN, MAX_IMAGE_URL_LENGTH } from "../../domain/text.ts";
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../../domain/pagination.ts";

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Id = (description = "Opaque identifier") => Type.String({ minLength: 1, maxLength: 200, description });
export const Timestamp = Type.String({ format: "date-time", description: "ISO 8601, UTC (on input, a date-time without a zone or a bare date is read as UTC)" });

/** Recognizers of this service's own image URLs (its blob store's), which may be plain http on a developer's machine. */
const managedImageUrls = new Set<(url: string) => boolean>();
/** Image fields also accept the URLs `isManaged` recognizes (the service's blob store registers its own). */
export const acceptManagedImageUrls = (isManaged: (url: string) => boolean): void => {
  managedImageUrls.add(isManaged);
};
const HTTPS_IMAGE_URL = new RegExp(IMAGE_URL_PATTERN);
if (!FormatRegistry.Has("image-url"))
  FormatRegistry.Set("image-url", (value) => HTTPS_IMAGE_URL.test(value) || [...managedImageUrls].some((isManaged) => isManaged(value)));

/** `x-error` replaces the generic validator message with a sentence a user can act on. */
export const ImageUrl = Type.String({
  maxLength: MAX_IMAGE_URL_LENGTH,
  format: "image-url",
  description: "HTTPS URL, at most 2048 characters (or the url of an image this service holds, as complete or generate returned it)",
  "x-error": "Image must be an HTTPS URL of at most 2048 characters",
});

/**
 * Optional on the wire, with a default validation fills in before `run` sees the input: so the
 * static type says required (`TOptional<T>` is a `T`; the schema itself is unchanged).
 */
export const Defaulted = <T extends TSchema>(schema: T): T => ({ ...schema, [OptionalKind]: "Optional" as const });

export const PageQuery = {
  page: Defaulted(Type.Integer({ minimum: 1, default: 1, description: "Page number, from 1" })),
  size: Defaulted(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: "Items per page (1–100)" })),
};

export const PageOf = <T extends TSchema>(item: T, name: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      total: Type.Integer({ minimum: 0 }),
      page: Type.Integer({ minimum: 1 }),
      size: Type.Integer({ minimum: 1 }),
      pages: Type.Integer({ minimum: 0 }),
    },
    { title: name },
  );

/** A path of one id whose name is built (e.g. `faction_id`, in rows one factory makes for several kinds). */
export const IdPath = (name: string, description: string) => Type.Object({ [name]: Id(description) });

/** The id an `IdPath` names: validation has made sure it is there (TypeScript cannot know the built key). */
export const idIn = (path: Record<string, string>, name: string): string => path[name] ?? "";

/** Lists that take a campaign or a session and were given neither. */
export const campaignOrSessionMissing: Failure = invalidField(["query", "campaign_id"], "campaign_id or session_id is required", null, "missing");

export const CampaignIdPath = Type.Object({ campaign_id: Id("Campaign id (the legacy routes call it world_id)") });

export const ErrorBody = Type.Object({ detail: Type.String() }, { title: "Error" });
export const ValidationErrorBody = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        type: Type.String(),
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        input: Type.Optional(Type.Unknown()),
      }),
    ),
  },
  { title: "ValidationError" },
);

export const WithLinks = Type.Boolean({ default: false, description: "Keep [[wikilink]] markup in text fields (read with this before editing such text)" });
export const WithLinksQuery = Type.Object({ with_links: Defaulted(WithLinks) });
export const CampaignIdQuery = { campaign_id: Id("Campaign id") };

export const Text = (maxLength: number, description?: string) => Nullable(Type.String({ maxLength, ...(description ? { description } : {}) }));
export const Aliases = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100, description: "Other names; normalized and deduplicated" });

export const Fields = Type.Optional(Type.Literal("card", { description: "card: only the fields a list or picker shows" }));

export const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

export const Success = Type.Object({ success: Type.Literal(true) }, { title: "Success" });
export const SuccessId = Type.Object({ success: Type.Literal(true), id: Id() }, { title: "SuccessWithId" });
export const IdQuery = (description: string) => Type.Object({ id: Id(description) });

export const Metadata = Nullable(Type.Record(Type.String(), Type.Unknown()));

/** Compendium records sync their links from wikilinks on save; story records only strip them on read. */
export const WIKILINKS_SYNCED = "Text fields may hold [[Target]] or [[Target|shown text]] wikilinks; saving syncs the record's links, and reads strip the markup unless with_links is true.";
export const WIKILINKS_STRIPPED = "Text fields may hold [[wikilinks]]; reads strip the markup unless with_links is true.";
export const FIRST_PARTY = "First-party route (needs a key with the product_write scope); not part of the public interface.";
