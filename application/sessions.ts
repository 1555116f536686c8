// Sessions: listed, read and edited by members; created and deleted by first-party clients only.
import { fail, invalidField, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import type { Moment } from "../domain/moments.ts";
import { toPage, type Page, type PageRequest } from "../domain/pagination.ts";
import type { Session, SessionType } from "../domain/sessions.ts";
import { stripOrKeep, stripWikilinks } from "../domain/wikilinks.ts";
import type { Repositories } from "../ports/records.ts";
import { campaignNotFound, inCampaign, requireFirstParty, type CampaignAccess } from "./access.ts";
import { beatView, type BeatView } from "./beats.ts";
import { nowIso, type Deps } from "./deps.ts";
import { syncWikilinks } from "./links.ts";

/** The session's search document: title over summary and notes. */
export async function indexSession(tx: Repositories, deps: Pick<Deps, "clock">, session: Session) {
  await tx.search.upsert(
    {
      campaign_id: session.campaign_id,
      doc_type: "sessions",
      doc_id: session.id,
      title: session.title,
      body: [stripWikilinks(session.summary ?? ""), session.notes ?? ""].filter(Boolean).join("\n"),
      facets: { type: session.type, session_date: session.session_date },
    },
    nowIso(deps),
  );
}

export interface SessionDraft {
  campaign_id: string;
  type: SessionType;
  title: string;
  session_date: string;
  summary?: string | null;
  notes?: string | null;
}

export async function createSession(deps: Deps, caller: Caller, draft: SessionDraft): Promise<Result<Session>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (!(await deps.records.campaigns.get(draft.campaign_id))) return campaignNotFound();
  const title = draft.title.trim();
  if (!title) return fail("invalid", "Title cannot be empty", [{ type: "string_too_short", loc: ["body", "title"], msg: "Title cannot be empty", input: draft.title }]);
  const session: Session = {
    id: deps.ids.next(),
    campaign_id: draft.campaign_id,
    type: draft.type,
    title,
    summary: draft.summary ?? null,
    // Only raw-notes sessions carry notes; the others have transcripts instead.
    notes: draft.type === "rawNotes" ? (draft.notes ?? null) : null,
    session_date: new Date(draft.session_date).toISOString(),
    image: null,
    public: false,
    pbp_start_msg_url: null,
    pbp_end_msg_url: null,
    created_at: nowIso(deps),
    updated_at: null,
  };
  await deps.records.withTransaction(async (tx) => {
    await tx.sessions.insert(session);
    await syncWikilinks(tx, deps, { campaignId: session.campaign_id, type: "GameSession", id: session.id }, session.summary);
    await indexSession(tx, deps, session);
  });
  return ok(session);
}

export async function deleteSession(deps: Deps, caller: Caller, sessionId: string): Promise<Result<null>> {
  const allowed = requireFirstParty(caller);
  if (!allowed.ok) return allowed;
  if (!(await deps.records.sessions.get(sessionId))) return fail("not_found", "Session not found");
  const deleted = await deps.records.withTransaction(async (tx) => {
    if (!(await tx.sessions.get(sessionId, { lock: true }))) return false;
    await tx.search.remove("sessions", sessionId);
    await tx.search.removeByFacet("transcript", "session_id", sessionId);
    await tx.links.deleteTouching(sessionId);
    await tx.beats.forgetSession(sessionId);
    // Transcript, cast analysis, handout and recap cards go with the session; moments keep existing without it.
    return tx.sessions.delete(sessionId);
  });
  return deleted ? ok(null) : fail("not_found", "Session not found");
}

// Sessions on the public surface -----------------------------------------------------------------

export const SESSION_NOT_FOUND = "Session not found";

export type SessionView = Session & { index: number; beats?: BeatView[] | null; moments?: Moment[] | null };
/** One session read: beats and moments are null unless asked for. */
export type SessionDetail = SessionView & { beats: BeatView[] | null; moments: Moment[] | null };

const view = (session: Session, index: number, withLinks: boolean): SessionView => ({ ...session, summary: stripOrKeep(session.summary, withLinks), index });

export async function listSessions(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  query: PageRequest & { session_type?: SessionType; public_only?: boolean; with_links?: boolean },
): Promise<Result<Page<SessionView>>> {
  const campaignId = access.campaign.id;
  const page = { page: query.page, size: query.size };
  const { rows, total } = await deps.records.sessions.list(campaignId, { type: query.session_type, publicOnly: query.public_only }, page);
  return ok(toPage(rows.map((s) => view(s, s.index, query.with_links ?? false)), total, page));
}

export async function getSession(
  deps: Deps,
  caller: Caller,
  access: CampaignAccess,
  sessionId: string,
  options: { include_beats?: boolean; include_moments?: boolean; with_links?: boolean },
): Promise<Result<SessionDetail>> {
  const found = inCampaign(access, await deps.records.sessions.get(sessionId), SESSION_NOT_FOUND);
  if (!found.ok) return found;
  const session = found.value;
  const withLinks = options.with_links ?? false;
  const result: SessionDetail = { ...view(session, await deps.records.sessions.numberOf(session), withLinks), beats: null, moments: null };
  if (options.include_beats) result.beats = (await deps.records.beats.allBySession(session.id)).map((b) => beatView(b, withLinks));
  if (options.include_moments)
    result.moments = (await deps.records.moments.list({ sessionId: session.id }, { page: 1, size: 1000 })).rows.map((m) => ({ ...m, content: stripOrKeep(m.content, withLinks) }));
  return ok(result);
}

/** Only title, summary and session_date may change here. */
export async function patchSession(deps: Deps, caller: Caller, access: CampaignAccess, sessionId: string, patch: { title?: string; summary?: string | null; session_date?: string }): Promise<Result<SessionView>> {
  const found = inCampaign(access, await deps.records.sessions.get(sessionId), SESSION_NOT_FOUND);
  if (!found.ok) return found;
  if (patch.title !== undefined && !patch.title.trim()) return { ok: false, error: invalidField(["body", "title"], "Title cannot be empty", patch.title, "string_too_short") };
  return deps.records.withTransaction(async (tx): Promise<Result<SessionView>> => {
    const current = await tx.sessions.get(sessionId, { lock: true });
    if (!current) return fail("not_found", SESSION_NOT_FOUND);
    const next: Session = {
      ...current,
      title: patch.title?.trim() ?? current.title,
      summary: patch.summary !== undefined ? patch.summary : current.summary,
      session_date: patch.session_date ? new Date(patch.session_date).toISOString() : current.session_date,
      updated_at: nowIso(deps),
    };
    await tx.sessions.replace(next);
    if (patch.summary !== undefined) await syncWikilinks(tx, deps, { campaignId: next.campaign_id, type: "GameSession", id: next.id }, next.summary);
    await indexSession(tx, deps, next);
    return ok(view(next, await tx.sessions.numberOf(next), false));
  });
}
