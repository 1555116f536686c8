// The operation table: every operation of the service, declared once; each kind's rows live in its own file.
// The order is the published order (routes, OpenAPI paths and components, MCP tools).
import { beatOperations } from "./beats.ts";
import { campaignOperations, memberOperations } from "./campaigns.ts";
import { characterOperations } from "./characters.ts";
import { entityOperations } from "./entities.ts";
import { identityOperations } from "./identity.ts";
import { journalOperations } from "./journals.ts";
import { linkOperations, taskOperations } from "./links.ts";
import { momentOperations } from "./moments.ts";
import { oauthOperations } from "./oauth.ts";
import type { Operation } from "./operation.ts";
import { questOperations } from "./quests.ts";
import { recapOperations } from "./recaps.ts";
import { searchOperations } from "./search.ts";
import { sessionOperations } from "./sessions.ts";
import { speakerOperations } from "./speakers.ts";
import { systemOperations } from "./system.ts";

export const OPERATIONS = [
  ...systemOperations,
  ...campaignOperations,
  ...characterOperations,
  ...entityOperations,
  ...linkOperations,
  ...searchOperations,
  ...taskOperations,
  ...speakerOperations,
  ...questOperations,
  ...journalOperations,
  ...sessionOperations,
  ...beatOperations,
  ...momentOperations,
  ...recapOperations,
  ...identityOperations,
  ...oauthOperations,
  ...memberOperations,
] as const satisfies readonly Operation[];

/** Each row by id, with its types; rows a factory makes for several kinds (built ids, erased types) are left out. */
type LiteralRow<Op> = Op extends { id: infer Id } ? (string extends Id ? never : Op) : never;
export type OperationsById = { [Op in LiteralRow<(typeof OPERATIONS)[number]> as Op["id"]]: Op };
