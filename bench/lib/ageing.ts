// Ageing check (BENCH_SOAK): does the service slow down the longer it runs?
import { type PostgresRuns, measureFresh, measureRead } from "./explore.ts";
import { stopChild } from "./processes.ts";
import { startOneQuery, startService } from "./servers.ts";

/**
 * Ageing check: a fresh service and a fresh one-query ceiling, `runs` alternating runs each; then
 * one run of another fresh service, to tell a service that slows with age from a slower machine.
 */
export async function ageingCheck(ctx: PostgresRuns, runs: number) {
  console.log(`\n[soak] fresh processes, ${runs} alternating runs each of GET /v1/campaigns/{id} at ${ctx.connections} connections, pool ${ctx.poolSize}`);
  const service = (name: string) => () => startService({ name, databaseUrl: ctx.databaseUrl, poolSize: ctx.poolSize, logLevel: ctx.logLevel });
  const aged = await service("service-postgres-soak")();
  const ceiling = await startOneQuery(ctx.databaseUrl, ctx.poolSize);
  for (let run = 1; run <= runs; run++) {
    await measureRead(ctx, aged, "soak service postgres GET /v1/campaigns/{id}", "service");
    await measureRead(ctx, ceiling, "soak ceiling one-query postgres", "ceiling-one-query");
  }
  await stopChild(aged.child);
  await stopChild(ceiling.child);
  await measureFresh(ctx, service("service-postgres-control"), "soak control: another fresh service", "service");
}
