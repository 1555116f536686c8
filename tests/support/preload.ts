// Property tests explore new inputs on every local run; CI replays one fixed seed, so a landing is
// decided by the code, not by the draw. FC_SEED overrides either way (to replay a failure).
import fc from "fast-check";

const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : process.env.CI ? 20261121 : undefined;
if (seed !== undefined) fc.configureGlobal({ seed });
