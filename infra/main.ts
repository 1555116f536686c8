// Entry point: `bun infra/main.ts` (npm start).
import { jsonLogger } from "../adapters/system/system.ts";
import { ConfigError, parseConfig } from "./config.ts";
import { DataDirBusy } from "./datalock.ts";
import { openDatabase } from "./database.ts";

try {
  const config = parseConfig(process.env);
  // The database opens (PGlite compiles its WebAssembly) while the rest of the service loads.
  const opening = openDatabase(config, jsonLogger(config.logLevel), { lockPort: config.port });
  opening.catch(() => {}); // awaited below; a failure must not count as unhandled meanwhile
  const { startService } = await import("./service.ts");
  const service = await startService(config, await opening);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await service.stop();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
} catch (error) {
  if (error instanceof ConfigError || error instanceof DataDirBusy) {
    console.error(`campaign-memory-service: ${error.message}`);
  } else if ((error as NodeJS.ErrnoException)?.code === "EADDRINUSE") {
    console.error(`campaign-memory-service: the port is already in use (set PORT to another one)`);
  } else {
    console.error(`campaign-memory-service: could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
}
