// OAuth grants (the applications a user connected) and first-party sign-in links: wire schemas and operations.
import { Type } from "@sinclair/typebox";
import * as oauth from "../../application/oauth.ts";
import { ok } from "../../domain/errors.ts";
import { OAUTH_SCOPES } from "../../domain/oauth.ts";
import { FIRST_PARTY, Id, Nullable, Timestamp } from "./common.ts";
import { defineOperation, defineOperations } from "./operation.ts";

export const Grant = Type.Object(
  {
    id: Id(),
    client_id: Id(),
    client_name: Type.String({ description: "The name the application registered with" }),
    scopes: Type.Array(Type.Union(OAUTH_SCOPES.map((scope) => Type.Literal(scope)))),
    resource: Type.String({ description: "The resource the tokens are for (RFC 8707)" }),
    created_at: Timestamp,
    revoked_at: Nullable(Timestamp),
  },
  { title: "Grant" },
);

const GrantListing = Type.Object({ data: Type.Array(Grant) }, { title: "GrantListing" });

const LoginLink = Type.Object(
  { url: Type.String({ description: "Opens the consent page's sign-in; works once" }), expires_at: Timestamp },
  { title: "LoginLink" },
);

const GRANTS_WITH_A_KEY = "Only with an API key: an OAuth token cannot see or revoke grants.";

export const oauthOperations = defineOperations({ publishedAt: 155 }, [
  defineOperation({
    id: "listMyGrants",
    summary: "List the applications you connected",
    description: `Every OAuth grant you approved (the MCP clients connected to your account), newest first, revoked ones included. ${GRANTS_WITH_A_KEY}`,
    tag: "Users",
    access: { auth: "user", scope: "profile" },
    http: { method: "GET", path: "/v1/users/me/grants", status: 200 },
    input: {},
    output: GrantListing,
    run: async ({ deps, caller }) => {
      const grants = await oauth.listGrants(deps, caller);
      return grants.ok ? ok({ data: grants.value }) : grants;
    },
  }),
  defineOperation({
    id: "revokeMyGrant",
    summary: "Disconnect an application",
    description: `Revokes one of your OAuth grants: every token issued under it stops working on the next request. ${GRANTS_WITH_A_KEY}`,
    tag: "Users",
    // Declared as every change is; OAuth tokens are refused by the use case anyway.
    access: { auth: "user", scope: "agent_write" },
    http: { method: "DELETE", path: "/v1/users/me/grants/{grant_id}", status: 204 },
    input: { path: Type.Object({ grant_id: Id() }) },
    run: ({ deps, caller }, { path }) => oauth.revokeGrant(deps, caller, path.grant_id),
  }),
  defineOperation({
    id: "internalListGrants",
    summary: "List a user's OAuth grants",
    description: FIRST_PARTY,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "GET", path: "/internal/v1/users/{user_id}/grants", status: 200 },
    input: { path: Type.Object({ user_id: Id() }) },
    output: GrantListing,
    run: async ({ deps, caller }, { path }) => {
      const grants = await oauth.listGrants(deps, caller, path.user_id);
      return grants.ok ? ok({ data: grants.value }) : grants;
    },
  }),
  defineOperation({
    id: "internalRevokeGrant",
    summary: "Revoke an OAuth grant",
    description: `${FIRST_PARTY} Every token of the grant stops working at once.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "DELETE", path: "/internal/v1/grants/{grant_id}", status: 204 },
    input: { path: Type.Object({ grant_id: Id() }) },
    run: ({ deps, caller }, { path }) => oauth.revokeGrant(deps, caller, path.grant_id, { firstParty: true }),
  }),
  defineOperation({
    id: "internalIssueLoginLink",
    summary: "Issue a one-time sign-in link",
    description: `${FIRST_PARTY} A link that signs a browser in on the OAuth consent page as this user, once, within 10 minutes.`,
    tag: "First party",
    access: { auth: "first_party" },
    internal: true,
    http: { method: "POST", path: "/internal/v1/users/{user_id}/login-links", status: 201 },
    input: { path: Type.Object({ user_id: Id() }) },
    output: LoginLink,
    run: ({ deps, caller, info }, { path }) => oauth.issueLoginLink(deps, caller, oauth.settingsFor(info.publicBaseUrl), path.user_id),
  }),
]);

// Registers the rows on the operation table (adapters/operations/index.ts finds the export).
declare module "./index.ts" {
  interface PublishedOperations {
    oauth: typeof oauthOperations;
  }
}
