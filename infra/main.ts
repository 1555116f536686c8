// Entry point: `bun infra/main.ts` (npm start).
import { ConfigError, parseConfig } from "./config.ts";
import { DataDirBusy } from "./datalock.ts";
import { startService } from "./service.ts";

try {
  const config = parseConfig(process.env);
  const service = await startService(config);
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
