// Load generator process for bench/http.ts. Runs on Node (autocannon's home), never inside the server.
//
//   node bench/loadgen.mjs '{"url":"http://127.0.0.1:PORT/path","connections":64,"duration":10,"warmup":2,"headers":{...}}'
//
// Prints "phase measure" on stdout when the warm-up is over and the measured run starts, then one
// line "result <json>" at the end. Bounded: autocannon stops after `duration` seconds, and a hard
// timer ends this process whatever happens. Only 127.0.0.1 is accepted as a target.
import autocannon from "autocannon";

const config = JSON.parse(process.argv[2] ?? "{}");
const target = new URL(config.url);
if (target.hostname !== "127.0.0.1") {
  console.error(`loadgen: refusing target ${target.hostname}: only 127.0.0.1 is allowed`);
  process.exit(2);
}
const connections = Number(config.connections);
const duration = Number(config.duration);
const warmup = Number(config.warmup ?? 0);
if (!(connections >= 1 && connections <= 1024 && duration > 0 && duration <= 120 && warmup >= 0 && warmup <= 60)) {
  console.error("loadgen: connections must be 1..1024, duration 1..120 s, warmup 0..60 s");
  process.exit(2);
}

// Hard bound: even if autocannon never returned, this process ends.
const hardStop = setTimeout(() => {
  console.error("loadgen: hard time limit reached, exiting");
  process.exit(3);
}, (duration + warmup + 30) * 1000);
hardStop.unref();

const run = (seconds, onResponse) =>
  new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.toString(),
        connections,
        duration: seconds,
        headers: config.headers ?? {},
        timeout: 10,
        pipelining: 1,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (onResponse) instance.on("response", onResponse);
  });

if (warmup > 0) await run(warmup);

// autocannon's histogram has 1 ms resolution; keep the exact response times as well.
let times = new Float64Array(1 << 16);
let count = 0;
const statuses = {};
process.stdout.write("phase measure\n");
const result = await run(duration, (_client, statusCode, _bytes, responseTime) => {
  statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  if (statusCode >= 200 && statusCode < 300) {
    if (count === times.length) {
      const bigger = new Float64Array(times.length * 2);
      bigger.set(times);
      times = bigger;
    }
    times[count++] = responseTime;
  }
});

const sorted = times.subarray(0, count).sort();
const percentile = (p) => (count ? sorted[Math.min(count - 1, Math.ceil((p / 100) * count) - 1)] : null);
const round = (value, digits = 2) => (value == null ? null : Math.round(value * 10 ** digits) / 10 ** digits);
let sum = 0;
for (let i = 0; i < count; i++) sum += sorted[i];

const summary = {
  url: target.toString(),
  connections,
  duration_s: round(result.duration, 3),
  requests_total: result.requests.total,
  ok_total: count,
  requests_per_s: round(count / result.duration, 1),
  autocannon_requests_per_s_avg: result.requests.average,
  latency_ms: {
    mean: round(count ? sum / count : null),
    p50: round(percentile(50)),
    p90: round(percentile(90)),
    p99: round(percentile(99)),
    max: round(count ? sorted[count - 1] : null),
  },
  autocannon_latency_ms: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  statuses,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  throughput_bytes_per_s: result.throughput.average,
};
process.stdout.write(`result ${JSON.stringify(summary)}\n`);
process.exit(0);
