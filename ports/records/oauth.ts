// What OAuth needs from a record store: clients, grants, codes, tokens, consent-page sign-ins, and
// the shared rate-limit buckets. Secrets are passed in as digests only.
import type { OAuthScope } from "../../domain/oauth.ts";
import type { CampaignWithStanding } from "./campaigns.ts";

export interface OAuthClient {
  id: string;
  client_name: string;
  redirect_uris: string[];
  scope: string | null;
  /** The registration as answered (RFC 7591 3.2.1). */
  metadata: Record<string, unknown>;
  created_at: string;
}

export interface OAuthGrant {
  id: string;
  user_id: string;
  client_id: string;
  client_name: string;
  scopes: OAuthScope[];
  resource: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface OAuthCode {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: OAuthScope[];
  resource: string;
  expires_at: string;
  used_at: string | null;
  grant_id: string | null;
}

export interface OAuthToken {
  token_hash: string;
  grant_id: string;
  kind: "access" | "refresh";
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

/** An access token that may be used now, with its grant. */
export interface ActiveAccessToken {
  grantId: string;
  userId: string;
  scopes: OAuthScope[];
}

export interface OAuthRepository {
  insertClient(client: OAuthClient): Promise<OAuthClient>;
  getClient(id: string): Promise<OAuthClient | null>;

  insertGrant(grant: Omit<OAuthGrant, "client_name" | "last_used_at" | "revoked_at">): Promise<void>;
  getGrant(id: string, options?: { lock?: boolean }): Promise<OAuthGrant | null>;
  listGrants(userId: string): Promise<OAuthGrant[]>;
  /** False when there is no such active grant. */
  revokeGrant(id: string, at: string): Promise<boolean>;

  insertCode(code: Omit<OAuthCode, "used_at" | "grant_id">): Promise<void>;
  getCode(hash: string, options?: { lock?: boolean }): Promise<OAuthCode | null>;
  markCodeUsed(hash: string, at: string, grantId: string): Promise<void>;

  insertToken(token: Omit<OAuthToken, "used_at" | "revoked_at">): Promise<void>;
  getToken(hash: string, options?: { lock?: boolean }): Promise<OAuthToken | null>;
  markTokenUsed(hash: string, at: string): Promise<void>;
  revokeToken(hash: string, at: string): Promise<void>;
  /** An unexpired, unrevoked access token of an active grant. */
  findActiveAccessToken(hash: string, now: string): Promise<ActiveAccessToken | null>;
  /** The same and the caller's standing in one campaign, in one round trip (as for API keys). */
  findActiveAccessTokenWithCampaign(hash: string, now: string, campaignId: string): Promise<{ token: ActiveAccessToken; campaign: CampaignWithStanding | null } | null>;

  insertSignin(signin: { id_hash: string; user_id: string; expires_at: string }): Promise<void>;
  /** The signed-in user, while the sign-in lasts. */
  signedInUser(hash: string, now: string): Promise<string | null>;
  insertLoginLink(link: { id_hash: string; user_id: string; expires_at: string }): Promise<void>;
  /** Uses a sign-in link once: its user, or null when it is unknown, used or expired. */
  consumeLoginLink(hash: string, now: string): Promise<string | null>;
}

/** Rate-limit buckets shared by every instance (DESIGN 9). */
export interface RateLimitStore {
  /**
   * Takes `spent` tokens from each subject's bucket (refilled at `perSecond` up to `burst` since it
   * was last written, by the database's clock) and answers each bucket's tokens afterwards.
   */
  spend(spent: { subject: string; count: number }[], perSecond: number, burst: number): Promise<Map<string, number>>;
  /** Drops buckets untouched for `seconds` (full again, so the same as none). */
  prune(seconds: number): Promise<number>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    oauth: OAuthRepository;
    rateLimits: RateLimitStore;
  }
}
