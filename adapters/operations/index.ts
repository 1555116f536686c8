// The operation table: every operation of the service, declared once.
import { campaignOperations } from "./campaigns.ts";
import { compendiumOperations } from "./compendium.ts";
import { identityOperations } from "./identity.ts";
import { recordOperations } from "./records.ts";
import { storyOperations } from "./story.ts";
import type { Operation } from "./operation.ts";
import { systemOperations } from "./system.ts";

export const OPERATIONS: readonly Operation[] = [...systemOperations, ...campaignOperations, ...compendiumOperations, ...recordOperations, ...storyOperations, ...identityOperations];
