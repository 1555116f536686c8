// What the application needs from a record store: users and API keys.
import type { ApiKeyRecord, User, UserRole } from "../../domain/identity.ts";
import type { ReadOptions } from "../records.ts";
import type { CampaignWithStanding } from "./campaigns.ts";

export interface NewUser {
  id: string;
  name: string;
  email: string;
  role: UserRole;
  created_at: string;
}

export interface UserRepository {
  /** Returns null when the email is taken. */
  insert(user: NewUser): Promise<User | null>;
  get(id: string): Promise<User | null>;
  findByEmail(email: string, options?: ReadOptions): Promise<User | null>;
  count(): Promise<number>;
}

export interface ActiveKey {
  keyId: string;
  userId: string;
  scopes: string[];
}

export interface ApiKeyRepository {
  insert(key: Omit<ApiKeyRecord, "revoked_at"> & { hash: string }): Promise<ApiKeyRecord>;
  findActiveByHash(hash: string): Promise<ActiveKey | null>;
  /**
   * The key and, in the same round trip, the caller's standing in one campaign (null when there is
   * no such campaign): most requests name a campaign, and this halves their database round trips.
   */
  findActiveByHashWithCampaign(hash: string, campaignId: string): Promise<{ key: ActiveKey; campaign: CampaignWithStanding | null } | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** Returns false when there is no such active key. */
  revoke(id: string, at: string): Promise<boolean>;
  revokeAllForUserExcept(userId: string, keepHash: string, at: string): Promise<number>;
  /** Whether a revoked key has this digest: a revoked key is never brought back. */
  isRevokedHash(hash: string): Promise<boolean>;
  listForUser(userId: string): Promise<ApiKeyRecord[]>;
}

// Registers the kind: the store has these repositories (see ports/records.ts).
declare module "../records.ts" {
  interface Repositories {
    users: UserRepository;
    apiKeys: ApiKeyRepository;
  }
}
