import type { CardRenderer, HandoutWriter } from "../ports/media.ts";
import type { RecordStore } from "../ports/records.ts";
import type { Retriever } from "../ports/retrieval.ts";
import type { Clock, IdGenerator, KeyMinter, Logger, TaskSignal } from "../ports/system.ts";

export interface Deps {
  records: RecordStore;
  clock: Clock;
  ids: IdGenerator;
  keys: KeyMinter;
  log: Logger;
  tasks: TaskSignal;
  writer: HandoutWriter;
  cards: CardRenderer;
  /** Ask's passages: ranked, permission-filtered retrieval over the campaign. */
  retriever: Retriever;
}

export const nowIso = (deps: Pick<Deps, "clock">): string => deps.clock.now().toISOString();
