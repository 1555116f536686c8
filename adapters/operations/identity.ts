import { Type } from "@sinclair/typebox";
import * as identity from "../../application/identity.ts";
import { ok } from "../../domain/errors.ts";
import { defineOperations } from "./operation.ts";
import * as S from "./schemas.ts";

const FIRST_PARTY = "First-party route (needs a key with the product_write scope); not part of the public interface.";

export const identityOperations = defineOperations([
  {
    id: "getCurrentUser",
    summary: "Who am I",
    description: "Returns the profile of the user the presented key or token belongs to, with its scopes.",
    tag: "Users",
    auth: "user",
    http: { method: "GET", path: "/v1/users/me", status: 200 },
    input: {},
    output: S.UserProfile,
    run: ({ deps, caller }) => identity.currentUser(deps, caller),
  },
  {
    id: "internalCreateUser",
    summary: "Create a user",
    description: FIRST_PARTY,
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "POST", path: "/internal/v1/users", status: 201 },
    input: { body: S.UserCreate },
    output: S.User,
    run: async ({ deps, caller }, { body }) => {
      const created = await identity.createUser(deps, caller, { name: body.name, email: body.email });
      return created.ok ? ok({ id: created.value.id, name: created.value.name, email: created.value.email, created_at: created.value.created_at }) : created;
    },
  },
  {
    id: "internalIssueKey",
    summary: "Issue an API key",
    description: `${FIRST_PARTY} The key is shown only in this response; only its digest is stored.`,
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "POST", path: "/internal/v1/users/{user_id}/keys", status: 201 },
    input: { path: Type.Object({ user_id: S.Id() }), body: S.KeyCreate },
    output: S.IssuedKey,
    run: ({ deps, caller }, { path, body }) => identity.issueKey(deps, caller, path.user_id, body.scopes ?? []),
  },
  {
    id: "internalListKeys",
    summary: "List a user's API keys",
    description: `${FIRST_PARTY} Shows prefixes only.`,
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "GET", path: "/internal/v1/users/{user_id}/keys", status: 200 },
    input: { path: Type.Object({ user_id: S.Id() }) },
    output: S.KeyListing,
    run: async ({ deps, caller }, { path }) => {
      const keys = await identity.listKeys(deps, caller, path.user_id);
      return keys.ok
        ? ok({ data: keys.value.map(({ id, prefix, scopes, created_at, revoked_at }) => ({ id, prefix, scopes, created_at, revoked_at })) })
        : keys;
    },
  },
  {
    id: "internalRevokeKey",
    summary: "Revoke an API key",
    description: `${FIRST_PARTY} The key stops working at once, on every instance.`,
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "DELETE", path: "/internal/v1/keys/{key_id}", status: 204 },
    input: { path: Type.Object({ key_id: S.Id() }) },
    run: ({ deps, caller }, { path }) => identity.revokeKey(deps, caller, path.key_id),
  },
  {
    id: "internalRotateKey",
    summary: "Rotate an API key",
    description: `${FIRST_PARTY} Issues a new key with the same owner and scopes and revokes the old one, atomically. The new key is shown only in this response.`,
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "POST", path: "/internal/v1/keys/{key_id}/rotate", status: 201 },
    input: { path: Type.Object({ key_id: S.Id() }) },
    output: S.IssuedKey,
    run: ({ deps, caller }, { path }) => identity.rotateKey(deps, caller, path.key_id),
  },
  {
    id: "internalAddMember",
    summary: "Add a campaign member",
    description: `${FIRST_PARTY} Adds a user to a campaign with a role, or changes their role. Role owner hands the campaign over; the previous owner stays as admin.`,
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "POST", path: "/internal/v1/campaigns/{campaign_id}/members", status: 201 },
    input: { path: S.CampaignIdPath, body: S.MemberCreate },
    output: S.Member,
    run: ({ deps, caller }, { path, body }) =>
      identity.addMember(deps, caller, { campaign_id: path.campaign_id, user_id: body.user_id, role: body.role }),
  },
  {
    id: "internalRemoveMember",
    summary: "Remove a campaign member",
    description: `${FIRST_PARTY} The owner cannot be removed.`,
    tag: "First party",
    auth: "first_party",
    internal: true,
    http: { method: "DELETE", path: "/internal/v1/campaigns/{campaign_id}/members/{user_id}", status: 204 },
    input: { path: Type.Object({ campaign_id: S.Id(), user_id: S.Id() }) },
    run: ({ deps, caller }, { path }) => identity.removeMember(deps, caller, path.campaign_id, path.user_id),
  },
]);
