// The rows of a plain kind: list, create, get, update and delete under /v1/<kind>s. What is the same
// for every such kind is written here once (ids, summaries, tag, access, routes, MCP tools); a kind's
// file states only what is its own: the texts, the schemas, how a list or a create finds its
// campaign, and the use case each row runs.
import type { TSchema } from "@sinclair/typebox";
import type { Failure, Result } from "../../domain/errors.ts";
import type { OAuthScope } from "../../domain/oauth.ts";
import type { OwnedKind } from "../../ports/records.ts";
import { campaignOrSessionMissing, IdPath, idIn } from "./common.ts";
import { defineOperation, type CampaignLocator, type ContextFor, type InputOf, type InputSchemas, type OutputOf } from "./operation.ts";

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

type Campaign = { auth: "campaign" };
type Locate<I extends InputSchemas> = (input: InputOf<I>) => CampaignLocator | Failure;
/** The path of a row addressing one record. */
type Path = ReturnType<typeof IdPath>;

/** What a row of a plain kind states; a row addressing one record gets the path added, and its id. */
interface Bespoke<I extends InputSchemas, O extends TSchema | undefined, Run extends InputSchemas = I, Args extends unknown[] = []> {
  description: string;
  input: I;
  output: O;
  run: (context: ContextFor<Campaign>, input: InputOf<Run>, ...args: Args) => Promise<Result<OutputOf<O>>>;
}

/** Lists and creates that name the campaign, or a session of it, in the input. */
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
  return {
    list: <I extends InputSchemas, O extends TSchema>(row: Bespoke<I, O> & { campaign: Locate<I> }) =>
      defineOperation({
        id: `list${name}s`,
        summary: `List ${plural}`,
        description: row.description,
        tag,
        access: { auth: "campaign", level: "read", scope: readScope, campaign: row.campaign },
        http: { method: "GET", path: collection, status: 200 },
        mcp: { name: `list_${snake}s`, title: `List ${plural}`, readOnly: true },
        input: row.input,
        output: row.output,
        run: row.run,
      }),
    create: <I extends InputSchemas, O extends TSchema>(row: Bespoke<I, O> & { campaign: Locate<I> }) =>
      defineOperation({
        id: `create${name}`,
        summary: `Create a ${one}`,
        description: row.description,
        tag,
        access: { ...write, campaign: row.campaign },
        http: { method: "POST", path: collection, status: 201, ...limit },
        mcp: { name: `create_${snake}`, title: `Create a ${one}`, readOnly: false, destructive: false, idempotent: false },
        input: row.input,
        output: row.output,
        run: row.run,
      }),
    get: <I extends InputSchemas, O extends TSchema>(row: Bespoke<I, O, I & { path: Path }, [id: string]>) =>
      defineOperation({
        id: `get${name}`,
        summary: `Get a ${one}`,
        description: row.description,
        tag,
        access: { auth: "campaign", level: "read", scope: readScope, campaign: located },
        http: { method: "GET", path: item, status: 200 },
        mcp: { name: `get_${snake}`, title: `Get a ${one}`, readOnly: true },
        input: { ...row.input, path },
        output: row.output,
        run: (context, input) => row.run(context, input, idIn(input.path, idName)),
      }),
    /** `idempotent: false` where sending the same patch twice does not leave the same record (a quest's progress log). */
    update: <I extends InputSchemas, O extends TSchema>(row: Bespoke<I, O, I & { path: Path }, [id: string]> & { idempotent?: false }) =>
      defineOperation({
        id: `update${name}`,
        summary: `Update a ${one}`,
        description: row.description,
        tag,
        access: { ...write, campaign: located },
        http: { method: "PATCH", path: item, status: 200, ...limit },
        mcp: { name: `update_${snake}`, title: `Update a ${one}`, readOnly: false, destructive: false, idempotent: row.idempotent ?? true },
        input: { ...row.input, path },
        output: row.output,
        run: (context, input) => row.run(context, input, idIn(input.path, idName)),
      }),
    remove: (row: { description: string; run: (context: ContextFor<Campaign>, id: string) => Promise<Result<null>> }) =>
      defineOperation({
        id: `delete${name}`,
        summary: `Delete a ${one}`,
        description: row.description,
        tag,
        access: { ...write, campaign: located },
        http: { method: "DELETE", path: item, status: 204 },
        mcp: { name: `delete_${snake}`, title: `Delete a ${one}`, readOnly: false, destructive: true, idempotent: true },
        input: { path },
        run: (context, input) => row.run(context, idIn(input.path, idName)),
      }),
  };
}
