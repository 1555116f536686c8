// The rows of a plain kind: list, create, get, update and delete under /v1/<kind>s. What is the same
// for every such kind is written here once (ids, summaries, tag, access, routes, MCP tools); a kind's
// file states only what is its own: the texts, the schemas, how a list or a create finds its
// campaign, and the use case each row runs.
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { CampaignAccess } from "../../application/access.ts";
import type { Deps } from "../../application/deps.ts";
import type { Caller } from "../../domain/identity.ts";
import type { Failure, Result } from "../../domain/errors.ts";
import type { OAuthScope } from "../../domain/oauth.ts";
import type { OwnedKind } from "../../ports/records.ts";
import { campaignOrSessionMissing, IdPath, idIn, WithLinksQuery } from "./common.ts";
import { defineOperation, type CampaignLocator, type ContextFor, type InputOf, type InputSchemas, type Operation, type OutputOf, type TypedOperation } from "./operation.ts";

/** A plain kind, named as ids spell it: "HeroAward" gives listHeroAwards, getHeroAward, "Get a hero award", get_hero_award, /v1/hero-awards. */
export interface PlainKind<Name extends string> {
  name: Name;
  tag: string;
  /** Where the owner lookup finds a record's campaign. */
  record: OwnedKind;
  /** The scope reads need (writes need agent_write). */
  readScope: OAuthScope;
  /** The path parameter naming one record; `<name>_id` when left out. */
  idName?: string;
  /** Body limit of create and update, when more than the default. */
  maxBodyBytes?: number;
}

/** The path of a row addressing one record. */
type Path = ReturnType<typeof IdPath>;

/** A use case on one record, as the application's plain kinds write them: `(deps, caller, access, id, …)`. */
type UseCase<Args extends unknown[], Out> = (deps: Deps, caller: Caller, access: CampaignAccess, id: string, ...args: Args) => Promise<Result<Out>>;

/** What a list or a create row states. */
interface Bespoke<I extends InputSchemas, O extends TSchema> {
  description: string;
  /** How the row finds its campaign in the input. */
  campaign: (input: InputOf<I>) => CampaignLocator | Failure;
  input: I;
  output: O;
  run: (context: ContextFor<{ auth: "campaign" }>, input: InputOf<I>) => Promise<Result<OutputOf<O>>>;
}

/** Rows that name the campaign, or a session of it, in the input. */
export const byPathCampaign = ({ path }: { path: { campaign_id: string } }) => ({ campaign_id: path.campaign_id });
export const byPathSession = ({ path }: { path: { session_id: string } }): CampaignLocator => ({ record: "sessions", id: path.session_id, notFound: "Session not found" });
export const byQueryCampaign = ({ query }: { query: { campaign_id: string } }) => ({ campaign_id: query.campaign_id });
export const byBodyCampaign = ({ body }: { body: { campaign_id: string } }) => ({ campaign_id: body.campaign_id });
export const byBodySession = ({ body }: { body: { session_id: string } }): CampaignLocator => ({ record: "sessions", id: body.session_id, notFound: "Session not found" });
export const byCampaignOrSession = ({ query }: { query: { campaign_id?: string; session_id?: string } }): CampaignLocator | Failure =>
  query.campaign_id ? { campaign_id: query.campaign_id } : query.session_id ? { record: "sessions", id: query.session_id, notFound: "Session not found" } : campaignOrSessionMissing;

/** The same, where a list given both reads the session's (beats). */
export const bySessionOrCampaign = ({ query }: { query: { campaign_id?: string; session_id?: string } }): CampaignLocator | Failure =>
  query.session_id ? { record: "sessions", id: query.session_id, notFound: "Session not found" } : query.campaign_id ? { campaign_id: query.campaign_id } : campaignOrSessionMissing;

const words = (name: string) => name.replace(/(?!^)[A-Z]/g, (letter) => ` ${letter}`).toLowerCase();

export function plainRows<const Name extends string>(kind: PlainKind<Name>) {
  const { name, tag, record, readScope } = kind;
  const one = words(name);
  const plural = `${one}s`;
  const snake = one.replaceAll(" ", "_");
  const collection = `/v1/${plural.replaceAll(" ", "-")}`;
  const idName = kind.idName ?? `${snake}_id`;
  const Noun = one[0]!.toUpperCase() + one.slice(1);
  const path = IdPath(idName, `${Noun} id`);
  const item = `${collection}/{${idName}}`;
  const located = ({ path }: { path: Record<string, string> }): CampaignLocator => ({ record, id: idIn(path, idName), notFound: `${Noun} not found` });
  const limit = kind.maxBodyBytes ? { maxBodyBytes: kind.maxBodyBytes } : {};
  const write = { auth: "campaign", level: "write", scope: "agent_write" } as const;
  const reads = { auth: "campaign", level: "read", scope: readScope } as const;
  /** A row's id, summary and tag, and its MCP tool: named after the id, titled by the summary. */
  const named = <const Id extends string>(id: Id, summary: string, hints: { readOnly: boolean; destructive?: boolean; idempotent?: boolean }) =>
    ({ id, summary, tag, mcp: { name: id.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), title: summary, ...hints } });
  /** Reads one record; `withLinks` for the kinds whose text keeps [[wikilinks]] (the use case is told whether to keep the markup; the others ignore the false they get). */
  function get<O extends TSchema>(row: { description: string; output: O; withLinks: true; use: UseCase<[withLinks: boolean], OutputOf<O>> }): TypedOperation<`get${Name}`, { path: Path; query: typeof WithLinksQuery }, O>;
  function get<O extends TSchema>(row: { description: string; output: O; use: UseCase<[], OutputOf<O>> }): TypedOperation<`get${Name}`, { path: Path }, O>;
  function get(row: { description: string; output: TSchema; withLinks?: true; use: UseCase<[withLinks: boolean], unknown> }): Operation {
    const read = {
      ...named(`get${name}`, `Get a ${one}`, { readOnly: true }),
      description: row.description,
      access: { ...reads, campaign: located },
      http: { method: "GET", path: item, status: 200 },
      output: row.output,
    } as const;
    return row.withLinks
      ? defineOperation({ ...read, input: { path, query: WithLinksQuery }, run: ({ deps, caller, access }, input) => row.use(deps, caller, access, idIn(input.path, idName), input.query.with_links) })
      : defineOperation({ ...read, input: { path }, run: ({ deps, caller, access }, input) => row.use(deps, caller, access, idIn(input.path, idName), false) });
  }
  return {
    list: <I extends InputSchemas, O extends TSchema>(row: Bespoke<I, O>) =>
      defineOperation({
        ...named(`list${name}s`, `List ${plural}`, { readOnly: true }),
        description: row.description,
        access: { ...reads, campaign: row.campaign },
        http: { method: "GET", path: collection, status: 200 },
        input: row.input,
        output: row.output,
        run: row.run,
      }),
    create: <I extends InputSchemas, O extends TSchema>(row: Bespoke<I, O>) =>
      defineOperation({
        ...named(`create${name}`, `Create a ${one}`, { readOnly: false, destructive: false, idempotent: false }),
        description: row.description,
        access: { ...write, campaign: row.campaign },
        http: { method: "POST", path: collection, status: 201, ...limit },
        input: row.input,
        output: row.output,
        run: row.run,
      }),
    get,
    /** `idempotent: false` where sending the same patch twice does not leave the same record (a quest's progress log). */
    update: <B extends TObject, O extends TSchema>(row: { description: string; body: B; output: O; idempotent?: false; use: UseCase<[patch: Static<B>], OutputOf<O>> }) =>
      defineOperation({
        ...named(`update${name}`, `Update a ${one}`, { readOnly: false, destructive: false, idempotent: row.idempotent ?? true }),
        description: row.description,
        access: { ...write, campaign: located },
        http: { method: "PATCH", path: item, status: 200, ...limit },
        input: { path, body: row.body },
        output: row.output,
        run: ({ deps, caller, access }, input) => row.use(deps, caller, access, idIn(input.path, idName), input.body),
      }),
    remove: (row: { description: string; use: UseCase<[], null> }) =>
      defineOperation({
        ...named(`delete${name}`, `Delete a ${one}`, { readOnly: false, destructive: true, idempotent: true }),
        description: row.description,
        access: { ...write, campaign: located },
        http: { method: "DELETE", path: item, status: 204 },
        input: { path },
        run: ({ deps, caller, access }, input) => row.use(deps, caller, access, idIn(input.path, idName)),
      }),
  };
}
