import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  applyQuestPatch,
  deriveQuestStatus,
  emptyQuest,
  OBJECTIVE_STATUSES,
  QUEST_ENTITY_TYPES,
  QUEST_STATUSES,
  relatedLabels,
  type ObjectiveStatus,
  type QuestPatch,
  type QuestState,
} from "../../domain/quests.ts";

const statuses = fc.array(fc.constantFrom(...OBJECTIVE_STATUSES), { maxLength: 12 });
const counter = () => {
  let n = 0;
  return () => `id-${++n}`;
};

describe("quest status derivation", () => {
  test("the rule, case by case", () => {
    const cases: [ObjectiveStatus[], string][] = [
      [[], "planned"],
      [["completed", "completed"], "done"],
      [["completed", "in-progress", "blocked"], "in-progress"],
      [["blocked", "failed", "pending"], "blocked"],
      [["failed", "completed"], "failed"],
      [["failed", "failed"], "failed"],
      [["failed", "pending"], "planned"],
      [["completed", "pending"], "in-progress"],
      [["pending", "pending"], "planned"],
    ];
    for (const [input, expected] of cases) expect(deriveQuestStatus(input) as string).toBe(expected);
  });

  test("all completed ⇔ done (for a non-empty list)", () => {
    fc.assert(fc.property(statuses, (s) => expect(deriveQuestStatus(s) === "done").toBe(s.length > 0 && s.every((x) => x === "completed"))));
  });

  test("the order of objectives never changes the status", () => {
    fc.assert(fc.property(statuses, fc.nat(), (s, seed) => {
      const shuffled = [...s].sort((a, b) => ((a.charCodeAt(0) * 31 + seed) % 7) - ((b.charCodeAt(0) * 31 + seed) % 7));
      expect(deriveQuestStatus(shuffled)).toBe(deriveQuestStatus(s));
    }));
  });

  test("any objective in progress means in-progress unless all are completed; never n/a", () => {
    fc.assert(fc.property(statuses, (s) => {
      const status = deriveQuestStatus(s);
      if (s.includes("in-progress")) expect(status).toBe("in-progress");
      expect(status).not.toBe("n/a");
      expect(QUEST_STATUSES).toContain(status);
    }));
  });

  test("over every mix of up to three statuses the derived status is one of the rule's outcomes", () => {
    for (const a of OBJECTIVE_STATUSES) for (const b of OBJECTIVE_STATUSES) for (const c of OBJECTIVE_STATUSES) {
      const s = deriveQuestStatus([a, b, c]);
      expect(["planned", "in-progress", "blocked", "failed", "done"]).toContain(s);
    }
  });
});

// A model of the patch rules, written independently of the implementation.
interface Model {
  name: string;
  status: string;
  objectives: [string, ObjectiveStatus][];
  progress: string[];
  related: [string, string][]; // [type, label]
}

const modelPatch = (m: Model, p: QuestPatch): Model => {
  const next: Model = { ...m, objectives: [...m.objectives], progress: [...m.progress], related: [...m.related] };
  if (p.quest_name !== undefined) next.name = p.quest_name;
  if (p.objectives !== undefined) {
    next.objectives = p.objectives.map((o) => (typeof o === "string" ? [o.trim(), "pending"] : [o.text.trim(), o.status ?? "pending"]));
    next.status = deriveQuestStatus(next.objectives.map(([, s]) => s));
  } else if (p.status !== undefined) next.status = p.status;
  if (p.progress_log !== undefined) next.progress = p.progress_log.map((e) => (typeof e === "string" ? e : e.text));
  if (p.related_entity_refs !== undefined) next.related = p.related_entity_refs.map((r) => [r.entity_type, r.label ?? r.entity_name_snapshot ?? ""]);
  for (const [key, type] of [["related_characters", "character"], ["related_factions", "faction"], ["related_locations", "location"], ["related_items", "item"]] as const) {
    const labels = p[key];
    if (labels !== undefined) next.related = [...next.related.filter(([t]) => t !== type), ...labels.map((l) => l.trim()).filter(Boolean).map((l) => [type, l] as [string, string])];
  }
  return next;
};

const asModel = (q: QuestState): Model => ({
  name: q.quest_name,
  status: q.status,
  objectives: q.objectives.map((o) => [o.text, o.status]),
  progress: q.progress_log_entries.map((e) => e.text),
  related: q.related_entity_refs.map((r) => [r.entity_type, r.label ?? r.entity_name_snapshot ?? ""]),
});

const label = fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,10}$/);
const patchArb: fc.Arbitrary<QuestPatch> = fc.record(
  {
    quest_name: label,
    status: fc.constantFrom(...QUEST_STATUSES),
    objectives: fc.array(fc.oneof(label, fc.record({ text: label, status: fc.constantFrom(...OBJECTIVE_STATUSES) })), { maxLength: 5 }),
    progress_log: fc.array(label, { maxLength: 4 }),
    related_entity_refs: fc.array(fc.record({ entity_type: fc.constantFrom(...QUEST_ENTITY_TYPES), label }), { maxLength: 4 }),
    related_characters: fc.array(label, { maxLength: 3 }),
    related_factions: fc.array(label, { maxLength: 3 }),
    related_locations: fc.array(label, { maxLength: 3 }),
    related_items: fc.array(label, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

describe("quest patch rules", () => {
  test("random patch sequences agree with the model", () => {
    fc.assert(
      fc.property(fc.array(patchArb, { maxLength: 8 }), (patches) => {
        const ids = counter();
        let quest = emptyQuest("Start");
        let model = asModel(quest);
        for (const patch of patches) {
          quest = applyQuestPatch(quest, patch, ids);
          model = modelPatch(model, patch);
          expect(asModel(quest)).toEqual(model);
        }
        // Ids are unique and orders are 0..n-1 in every list.
        for (const list of [quest.objectives, quest.progress_log_entries, quest.related_entity_refs]) {
          expect(new Set(list.map((x) => x.id)).size).toBe(list.length);
          expect(list.map((x) => x.order)).toEqual(list.map((_, i) => i));
        }
      }),
    );
  });

  test("rule 6: a status sent with objectives is ignored", () => {
    const quest = applyQuestPatch(emptyQuest("Q"), { status: "failed", objectives: [{ text: "a", status: "completed" }] }, counter());
    expect(quest.status).toBe("done");
    expect(applyQuestPatch(quest, { status: "blocked" }, counter()).status).toBe("blocked");
  });

  test("rule 4: a per-type array leaves the other buckets alone", () => {
    const ids = counter();
    const quest = applyQuestPatch(emptyQuest("Q"), { related_entity_refs: [{ entity_type: "character", label: "Grog" }, { entity_type: "location", label: "Emon" }] }, ids);
    const patched = applyQuestPatch(quest, { related_characters: ["Pike", "Vex"] }, ids);
    expect(relatedLabels(patched.related_entity_refs, "character")).toEqual(["Pike", "Vex"]);
    expect(relatedLabels(patched.related_entity_refs, "location")).toEqual(["Emon"]);
  });

  test("rule 1: an empty patch changes nothing", () => {
    const quest = applyQuestPatch(emptyQuest("Q"), { objectives: ["a"], progress_log: ["x"] }, counter());
    expect(applyQuestPatch(quest, {}, counter())).toEqual(quest);
  });
});
