// The change feed: what changed in a campaign since a cursor, as far as the caller may read.
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Change } from "../ports/records.ts";
import type { CampaignAccess } from "./access.ts";
import type { Deps } from "./deps.ts";

export interface ChangePage {
  data: Change[];
  /** Pass back as `since` for the changes after these; never null, so a client can always poll on. */
  next_cursor: string;
}

export const CURSOR_EXPIRED = "This cursor has expired: the changes after it were removed by retention (CHANGE_RETENTION_DAYS); start again without since";

/** Cursors are the decimal seq of the last change seen ("0" before the first). */
export async function listChanges(deps: Pick<Deps, "records">, viewerId: string, access: CampaignAccess, input: { since?: string; limit: number }): Promise<Result<ChangePage>> {
  const campaignId = access.campaign.id;
  // Position first: every change up to last_seq is committed, so reading up to it skips nothing.
  const position = await deps.records.changes.position(campaignId);
  let after = input.since === undefined ? position.pruned_through : Number(input.since);
  if (input.since !== undefined && after < position.pruned_through) return fail("gone", CURSOR_EXPIRED);
  if (after > position.last_seq) return fail("bad_request", `This cursor (${input.since}) is ahead of the campaign's feed, which ends at ${position.last_seq}`);
  after = Math.max(after, 0);
  const data = await deps.records.changes.list(campaignId, after, position.last_seq, input.limit, viewerId);
  // A short page read everything up to last_seq (invisible changes included): the cursor moves past them.
  const next = data.length < input.limit ? position.last_seq : data[data.length - 1]!.seq;
  return ok({ data, next_cursor: String(next) });
}

/** Retention: removes changes older than `days` (those an enabled webhook still has to deliver stay). */
export async function pruneChanges(deps: Pick<Deps, "records" | "clock">, days: number): Promise<number> {
  return deps.records.changes.prune(new Date(deps.clock.now().getTime() - days * 86_400_000).toISOString());
}
