// Campaign roles and what they may do (DESIGN section 7).
export const MEMBER_ROLES = ["owner", "admin", "player", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const ACCESS_LEVELS = ["none", "read", "write", "manage", "owner"] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export interface CampaignStanding {
  isOwner: boolean;
  roles: readonly string[];
  campaignIsPublic: boolean;
}

const rank = (level: AccessLevel): number => ACCESS_LEVELS.indexOf(level);

/**
 * The strongest access level a caller's standing in a campaign grants. Ownership is the campaign's
 * `owner_id` alone: the `owner` role on a membership mirrors it, and on anyone else (a former
 * owner) counts as no more than admin.
 */
export const accessLevelOf = ({ isOwner, roles, campaignIsPublic }: CampaignStanding): AccessLevel => {
  if (isOwner) return "owner";
  if (roles.includes("admin") || roles.includes("owner")) return "manage";
  if (roles.includes("player")) return "write";
  if (roles.includes("viewer") || campaignIsPublic) return "read";
  return "none";
};

export const grants = (held: AccessLevel, needed: AccessLevel): boolean => rank(held) >= rank(needed);

/** The single role shown for a member: the strongest they hold. */
export const primaryRole = (isOwner: boolean, roles: readonly string[]): MemberRole | null => {
  if (isOwner) return "owner";
  if (roles.includes("owner")) return "admin"; // as accessLevelOf: only owner_id makes the owner
  for (const role of MEMBER_ROLES) if (roles.includes(role)) return role;
  return null;
};

export const deniedDetail = (needed: AccessLevel): string => {
  switch (needed) {
    case "read":
    case "none":
      return "Access denied to this campaign";
    case "write":
      return "Write access denied for this campaign";
    case "manage":
      return "Manage access (owner or admin) is required for this campaign";
    case "owner":
      return "Only the campaign owner can do this";
  }
};
