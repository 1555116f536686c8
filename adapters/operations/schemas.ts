// Wire schemas (TypeBox = JSON Schema). Shared by validation, OpenAPI and MCP tool listings.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { MEMBER_ROLES } from "../../domain/access.ts";
import { SCOPES } from "../../domain/identity.ts";
import { IMAGE_URL_PATTERN, MAX_IMAGE_URL_LENGTH } from "../../domain/text.ts";
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../../domain/pagination.ts";

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Id = (description = "Opaque identifier") => Type.String({ minLength: 1, maxLength: 200, description });
export const Timestamp = Type.String({ format: "date-time", description: "ISO 8601, UTC" });

/** `x-error` replaces the generic validator message with a sentence a user can act on. */
export const ImageUrl = Type.String({
  maxLength: MAX_IMAGE_URL_LENGTH,
  pattern: IMAGE_URL_PATTERN,
  description: "HTTPS URL, at most 2048 characters",
  "x-error": "Image must be an HTTPS URL of at most 2048 characters",
});

export const PageQuery = {
  page: Type.Integer({ minimum: 1, default: 1, description: "Page number, from 1" }),
  size: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: "Items per page (1–100)" }),
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

export const CampaignIdPath = Type.Object({ campaign_id: Id("Campaign id (the legacy routes call it world_id)") });

export const Campaign = Type.Object(
  {
    id: Id(),
    title: Type.String(),
    description: Nullable(Type.String()),
    system: Nullable(Type.String({ description: "Game system label" })),
    summary: Nullable(Type.String()),
    language: Type.String(),
    image: Nullable(Type.String()),
    public: Type.Boolean({ description: "Read-only" }),
    mature: Type.Boolean(),
    owner_id: Id(),
    created_at: Timestamp,
    updated_at: Nullable(Timestamp),
  },
  { title: "Campaign" },
);

const campaignFields = {
  description: Nullable(Type.String({ maxLength: 20_000 })),
  system: Nullable(Type.String({ maxLength: 200, description: "Game system label, e.g. D&D 5e" })),
  summary: Nullable(Type.String({ maxLength: 50_000 })),
  language: Type.String({ minLength: 2, maxLength: 35, description: "BCP 47 language tag, default en" }),
  image: Nullable(ImageUrl),
  mature: Type.Boolean(),
};

export const CampaignCreate = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 200 }), ...Type.Partial(Type.Object(campaignFields)).properties },
  { title: "CampaignCreate" },
);

export type CampaignCreateBody = Static<typeof CampaignCreate>;

export const CampaignUpdate = Type.Partial(
  Type.Object({ title: Type.String({ minLength: 1, maxLength: 200 }), ...campaignFields }),
  { title: "CampaignUpdate" },
);

export const CampaignListQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: "Substring of title or description" })),
  owner_id: Type.Optional(Id("Only campaigns owned by this user")),
  public_only: Type.Optional(Type.Boolean({ default: false, description: "List public campaigns instead of your own" })),
});

const count = Type.Integer({ minimum: 0 });
export const CampaignStats = Type.Object(
  {
    campaign_id: Id(),
    title: Type.String(),
    public: Type.Boolean(),
    created_at: Timestamp,
    characters: count,
    sessions: count,
    moments: count,
    beats: count,
    factions: count,
    locations: count,
    items: count,
  },
  { title: "CampaignStats" },
);

export const UserProfile = Type.Object(
  {
    id: Id(),
    name: Type.String(),
    email: Type.String(),
    role: Type.String({ description: "user or admin" }),
    created_at: Timestamp,
    scopes: Type.Array(Type.String()),
    api_profile: Type.Union([Type.Literal("developer"), Type.Literal("agent")]),
  },
  { title: "UserProfile" },
);

export const User = Type.Object(
  { id: Id(), name: Type.String(), email: Type.String(), created_at: Timestamp },
  { title: "User" },
);

export const UserCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ minLength: 3, maxLength: 320 }),
});

export const KeyCreate = Type.Object({
  scopes: Type.Optional(Type.Array(Type.Union(SCOPES.map((scope) => Type.Literal(scope))), { maxItems: 10 })),
});

export const IssuedKey = Type.Object(
  {
    id: Id(),
    key: Type.String({ description: "The secret. Shown only in this response." }),
    prefix: Type.String(),
    user_id: Id(),
    scopes: Type.Array(Type.String()),
    created_at: Timestamp,
  },
  { title: "IssuedKey" },
);

export const KeyListing = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Id(),
      prefix: Type.String(),
      scopes: Type.Array(Type.String()),
      created_at: Timestamp,
      revoked_at: Nullable(Timestamp),
    }),
  ),
});

export const MemberRole = Type.Union(MEMBER_ROLES.map((role) => Type.Literal(role)));

export const MemberCreate = Type.Object({ user_id: Id(), role: MemberRole });

export const Member = Type.Object(
  { campaign_id: Id(), user_id: Id(), role: MemberRole, roles: Type.Array(Type.String()), created_at: Timestamp },
  { title: "Member" },
);

export const Health = Type.Object({
  status: Type.String(),
  service: Type.String(),
  version: Type.String(),
  environment: Type.String(),
  port: Type.Integer(),
  timestamp: Timestamp,
});

export const DatabaseHealth = Type.Object({
  status: Type.String(),
  backend: Type.String(),
  latency_ms: Type.Number(),
  migrations: Type.Object({ applied: Type.Integer(), latest: Nullable(Type.String()) }),
});

export const RootInfo = Type.Object({
  name: Type.String(),
  version: Type.String(),
  docs: Type.String(),
  openapi: Type.String(),
  mcp: Type.String(),
  health: Type.String(),
});

export const VersionInfo = Type.Object({ version: Type.String(), api: Type.String(), resources: Type.Array(Type.String()) });

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
