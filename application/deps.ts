import type { LanguageModel } from "../ports/ai.ts";
import type { CardRenderer, HandoutWriter } from "../ports/media.ts";
import type { RecordStore } from "../ports/records.ts";
import type { Retriever } from "../ports/retrieval.ts";
import type { Clock, IdGenerator, KeyMinter, Logger, TaskSignal } from "../ports/system.ts";
import type { TokenCounter } from "../ports/tokens.ts";

/** What Ask answers with (its passages come from `retriever`): words from the model (offline when null), budgets per user. */
export interface AskDeps {
  /** Null: the offline, extractive answerer. */
  model: LanguageModel | null;
  tokens: TokenCounter;
  /** Tokens (prompt + answer) each user may use per calendar month and per hour, UTC. */
  limits: { monthly: number; hourly: number };
}

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
  ask: AskDeps;
}

export const nowIso = (deps: Pick<Deps, "clock">): string => deps.clock.now().toISOString();
