// Records that nest by parent (locations, beats, journal folders): cycle checks and nesting.

/**
 * Whether giving `id` the parent `newParent` would make a location its own ancestor.
 * `parentOf` answers for every location on the way up (undefined = no parent).
 */
export function wouldCreateCycle(id: string, newParent: string | null, parentOf: (id: string) => string | null | undefined): boolean {
  const seen = new Set<string>();
  for (let current: string | null | undefined = newParent; current; current = parentOf(current)) {
    if (current === id) return true;
    if (seen.has(current)) return true; // an existing loop: refuse rather than spin
    seen.add(current);
  }
  return false;
}

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
