// Child processes of the bench: all tracked, all stopped at the end; one that ends without being
// asked to is recorded as an incident.
import type { Subprocess } from "bun";
import { ROOT } from "./env.ts";

export interface Child {
  name: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  output(): string;
  /** Set when the bench stops it; an exit without it is reported as an incident. */
  stopping: boolean;
}
const children = new Set<Child>();

export interface Incident {
  at: string;
  name: string;
  pid: number;
  exit_code: number | null;
  signal: string | null;
  output_tail: string;
}
/** Child processes that ended without being asked to (killed from outside, crashed). */
export const incidents: Incident[] = [];

/** This process and its running children: their CPU time is the bench's own. */
export const ownPids = (): Set<number> => new Set([process.pid, ...[...children].map((c) => c.proc.pid)]);

async function drain(stream: ReadableStream<Uint8Array>, onText: (text: string) => void) {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onText(decoder.decode(value, { stream: true }));
  }
}

export interface SpawnOptions {
  onStdoutLine?: (line: string) => void;
  /** Also pass the child's output on to this process's stdout/stderr. */
  echo?: boolean;
}

export function spawnChild(name: string, cmd: string[], childEnv: Record<string, string>, options: SpawnOptions = {}): Child {
  const { onStdoutLine, echo = false } = options;
  let output = "";
  const keep = (text: string) => {
    output = (output + text).slice(-20_000);
  };
  const proc = Bun.spawn(cmd, {
    cwd: ROOT,
    env: { ...process.env, ...childEnv },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let pending = "";
  void drain(proc.stdout, (text) => {
    keep(text);
    if (echo) process.stdout.write(text);
    if (!onStdoutLine) return;
    pending += text;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      onStdoutLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
    }
  });
  void drain(proc.stderr, (text) => {
    keep(text);
    if (echo) process.stderr.write(text);
  });
  const child: Child = { name, proc, output: () => output, stopping: false };
  children.add(child);
  void proc.exited.then(() => {
    children.delete(child);
    if (child.stopping || name === "loadgen") return;
    const incident = {
      at: new Date().toISOString(),
      name,
      pid: proc.pid,
      exit_code: proc.exitCode,
      signal: proc.signalCode === null ? null : String(proc.signalCode),
      output_tail: output.slice(-2000),
    };
    incidents.push(incident);
    console.log(`  !! ${name} (pid ${proc.pid}) ended unexpectedly: exit code ${proc.exitCode}, signal ${incident.signal}; last output: ${output.slice(-500).trim() || "(none)"}`);
  });
  return child;
}

/** SIGTERM, then SIGKILL after 5 s. */
export async function stopChild(child: Child) {
  child.stopping = true;
  if (child.proc.exitCode === null && child.proc.signalCode === null) {
    child.proc.kill("SIGTERM");
    const exited = await Promise.race([child.proc.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
    if (!exited) {
      child.proc.kill("SIGKILL");
      await child.proc.exited;
    }
  }
  children.delete(child);
}

export const stopAll = () => Promise.all([...children].map(stopChild));
