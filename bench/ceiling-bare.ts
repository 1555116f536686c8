// Ceiling (a): a bare Bun.serve returning a fixed body, no auth, no database.
// Shows what Bun's HTTP layer alone reaches on this machine with the same load generator.
//
//   PORT=<port> BODY_FILE=<json file> bun bench/ceiling-bare.ts
import { readFileSync } from "node:fs";

const port = Number(process.env.PORT);
const bodyFile = process.env.BODY_FILE;
if (!Number.isInteger(port) || port < 1 || port > 65535 || !bodyFile) {
  console.error("ceiling-bare: set PORT and BODY_FILE");
  process.exit(2);
}
const body = readFileSync(bodyFile, "utf8");

const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  fetch: () => new Response(body, { headers: { "content-type": "application/json" } }),
});

const stop = () => {
  server.stop(true);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
console.log(`ceiling-bare listening on http://127.0.0.1:${server.port}`);
