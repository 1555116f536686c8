// Sessions: created and deleted by first-party clients only.
import { fail, ok, type Result } from "../domain/errors.ts";
import type { Caller } from "../domain/identity.ts";
import type { Session, SessionType } from "../domain/sessions.ts";
import { stripWikilinks } from "../domain/wikilinks.ts";
import type { Repositories } from "../ports/records.ts";
import { campaignNotFound, requireFirstParty } from "./access.ts";
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
