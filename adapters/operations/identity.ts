// Users and API keys: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as identity from "../../application/identity.ts";
import { ok } from "../../domain/errors.ts";
import { SCOPES } from "../../domain/identity.ts";
import { defineOperation, defineOperations } from "./operation.ts";
import { FIRST_PARTY, Id, Nullable, Timestamp } from "./common.ts";

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

export const identityOperations = defineOperations({ publishedAt: 150 }, [
  defineOperation({
    id: "getCurrentUser",
    summary: "Who am I",
    description: "Returns the profile of the user the presented key or token belongs to, with its scopes.",
    tag: "Users",
    access: { auth: "user", scope: "profile" },
    http: { method: "GET", path: "/v1/users/me", status: 200 },
    input: {},
    output: UserProfile,
    run: ({ deps, caller }) => identity.currentUser(deps, caller),
  }),
  defineOperation({
    id: "internalCreateUser",
    summary: "Create a user",
    description: FIRST_PARTY,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/users", status: 201 },
    input: { body: UserCreate },
    output: User,
    run: async ({ deps, caller }, { body }) => {
      const created = await identity.createUser(deps, caller, { name: body.name, email: body.email });
      return created.ok ? ok({ id: created.value.id, name: created.value.name, email: created.value.email, created_at: created.value.created_at }) : created;
    },
  }),
  defineOperation({
    id: "internalIssueKey",
    summary: "Issue an API key",
    description: `${FIRST_PARTY} The key is shown only in this response; only its digest is stored.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/users/{user_id}/keys", status: 201 },
    input: { path: Type.Object({ user_id: Id() }), body: KeyCreate },
    output: IssuedKey,
    run: ({ deps, caller }, { path, body }) => identity.issueKey(deps, caller, path.user_id, body.scopes ?? []),
  }),
  defineOperation({
    id: "internalListKeys",
    summary: "List a user's API keys",
    description: `${FIRST_PARTY} Shows prefixes only.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "GET", path: "/internal/v1/users/{user_id}/keys", status: 200 },
    input: { path: Type.Object({ user_id: Id() }) },
    output: KeyListing,
    run: async ({ deps, caller }, { path }) => {
      const keys = await identity.listKeys(deps, caller, path.user_id);
      return keys.ok
        ? ok({ data: keys.value.map(({ id, prefix, scopes, created_at, revoked_at }) => ({ id, prefix, scopes, created_at, revoked_at })) })
        : keys;
    },
  }),
  defineOperation({
    id: "internalRevokeKey",
    summary: "Revoke an API key",
    description: `${FIRST_PARTY} The key stops working at once, on every instance.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "DELETE", path: "/internal/v1/keys/{key_id}", status: 204 },
    input: { path: Type.Object({ key_id: Id() }) },
    run: ({ deps, caller }, { path }) => identity.revokeKey(deps, caller, path.key_id),
  }),
  defineOperation({
    id: "internalRotateKey",
    summary: "Rotate an API key",
    description: `${FIRST_PARTY} Issues a new key with the same owner and scopes and revokes the old one, atomically. The new key is shown only in this response.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/keys/{key_id}/rotate", status: 201 },
    input: { path: Type.Object({ key_id: Id() }) },
    output: IssuedKey,
    run: ({ deps, caller }, { path }) => identity.rotateKey(deps, caller, path.key_id),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    identity: typeof identityOperations;
  }
}
