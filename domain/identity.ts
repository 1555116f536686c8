// Users, API keys and scopes.

export const API_KEY_PREFIX = "cms_";
/** Characters of a key shown in listings: enough to recognise it, far too few to use it. */
export const VISIBLE_KEY_CHARS = 12;

export const SCOPES = ["product_write"] as const;
export type Scope = (typeof SCOPES)[number];

export type UserRole = "user" | "admin";
export type ApiProfile = "developer" | "agent";

export interface User {
  id: string;
  name: string;
  email: string;
  role: UserRole;
  created_at: string;
}

export interface Caller {
  userId: string;
  keyId: string;
  scopes: readonly string[];
  profile: ApiProfile;
}

export const keyPrefixOf = (key: string): string => key.slice(0, VISIBLE_KEY_CHARS);

export const looksLikeApiKey = (candidate: string): boolean =>
  candidate.length >= 20 && candidate.length <= 200 && /^[A-Za-z0-9_\-]+$/.test(candidate);

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export const isPlausibleEmail = (email: string): boolean => /^[^\s@]+@[^\s@]+$/.test(email.trim());

export interface ApiKeyRecord {
  id: string;
  user_id: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}
