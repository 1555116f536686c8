// Beats, moments, recap cards and handouts: the story of a campaign.

export const BEAT_TYPES = ["major", "minor", "step"] as const;
export type BeatType = (typeof BEAT_TYPES)[number];

export interface Beat {
  id: string;
  campaign_id: string;
  label: string;
  type: BeatType;
  description: string | null;
  index: number;
  parent_id: string | null;
  metadata: Record<string, unknown> | null;
  game_session_ids: string[];
  created_at: string;
  updated_at: string | null;
}

/** Only minor beats and steps hang under a parent. */
export const mayHaveParent = (type: BeatType): boolean => type !== "major";

export interface HierarchyNode<T extends { id: string; parent_id: string | null; index: number }> {
  node: T;
  children: HierarchyNode<T>[];
}

/** Nests beats by parent: roots are those whose parent is not among them; siblings by index. */
export function nest<T extends { id: string; parent_id: string | null; index: number; created_at: string }>(items: readonly T[]): HierarchyNode<T>[] {
  const byId = new Map(items.map((item) => [item.id, { node: item, children: [] as HierarchyNode<T>[] }]));
  const roots: HierarchyNode<T>[] = [];
  for (const entry of byId.values()) {
    const parent = entry.node.parent_id ? byId.get(entry.node.parent_id) : undefined;
    (parent && parent !== entry ? parent.children : roots).push(entry);
  }
  const order = (list: HierarchyNode<T>[]) => {
    list.sort((a, b) => a.node.index - b.node.index || a.node.created_at.localeCompare(b.node.created_at) || a.node.id.localeCompare(b.node.id));
    for (const entry of list) order(entry.children);
  };
  order(roots);
  return roots;
}

export interface Moment {
  id: string;
  campaign_id: string;
  session_id: string | null;
  label: string | null;
  content: string | null;
  image: string | null;
  index: number | null;
  categories: string[];
  kind: string;
  metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at: string | null;
}

export const KEY_MOMENT_CATEGORY = "key-moment";

/** PATCH merges metadata keys; a key set to null is removed. */
export function mergeMetadata(current: Record<string, unknown> | null, patch: Record<string, unknown> | null): Record<string, unknown> | null {
  if (patch === null) return null;
  // A Map and Object.fromEntries keep keys such as "__proto__" as plain data, never as a prototype.
  const merged = new Map(Object.entries(current ?? {}));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  return Object.fromEntries(merged);
}

/** Categories: trimmed, lower-cased, no blanks, no repeats, first order kept. */
export const normalizeCategories = (categories: readonly string[]): string[] => [...new Set(categories.map((c) => c.trim().toLowerCase()).filter(Boolean))];

export interface Handout {
  summary: string;
  sessionOutline: string | { title: string }[];
  encounters: { title: string; bullets: string[] }[];
  characterSpotlight: { name: string; description: string; bullets: string[] }[];
  otherEntitySpotlight: { name: string; description: string }[];
  items: { name: string; description: string }[];
  valuableInformation: { info: string }[];
  partyStatusAndNextSteps: { partyStatus: { summary: string; bullets: string[] }; nextSteps: { summary: string } };
  moments: { label: string; content: string }[];
}
