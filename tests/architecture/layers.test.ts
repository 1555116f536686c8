// The hexagon's dependency rule, checked on the source text; and the domain type-checks under Deno.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { PROJECT_ROOT } from "../support/server.ts";

const LAYERS = ["domain", "ports", "application", "adapters", "infra"] as const;
type Layer = (typeof LAYERS)[number];

/** Which layers each layer may import from. npm packages and node: builtins are "external". */
const ALLOWED: Record<Layer, { layers: Layer[]; external: boolean }> = {
  domain: { layers: ["domain"], external: false },
  ports: { layers: ["domain", "ports"], external: false },
  application: { layers: ["domain", "ports", "application"], external: false },
  adapters: { layers: ["domain", "ports", "application", "adapters"], external: true },
  infra: { layers: [...LAYERS], external: true },
};

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });

const importsOf = (source: string): string[] =>
  [...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => (m[1] ?? m[2])!);

export function violations(root = PROJECT_ROOT): string[] {
  const found: string[] = [];
  for (const layer of LAYERS) {
    for (const file of sourceFiles(join(root, layer))) {
      for (const specifier of importsOf(readFileSync(file, "utf8"))) {
        const where = `${relative(root, file)} imports "${specifier}"`;
        if (!specifier.startsWith(".")) {
          if (!ALLOWED[layer].external) found.push(`${where}: ${layer}/ may not import packages`);
          continue;
        }
        if (layer === "infra") continue; // the composition root may reach anything, package.json included
        const target = relative(root, resolve(dirname(file), specifier)).split(/[\\/]/)[0] as Layer;
        if (!(ALLOWED[layer].layers as string[]).includes(target)) found.push(`${where}: ${layer}/ may not depend on ${target}/`);
      }
    }
  }
  return found;
}

describe("layers", () => {
  test("no layer imports outward", () => {
    expect(violations()).toEqual([]);
  });

  test("the check finds violations planted in a tree (so it can fail)", () => {
    const root = mkdtempSync(join(tmpdir(), "cms-layers-"));
    try {
      const plant = (file: string, source: string) => {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), source);
      };
      for (const layer of LAYERS) mkdirSync(join(root, layer), { recursive: true });
      plant("domain/ok.ts", `import { x } from "./other.ts";\nexport const y = x;\n`);
      plant("domain/bad.ts", `import { records } from "../adapters/sql/records.ts";\nimport postgres from "postgres";\n`);
      plant("application/lazy.ts", `export const load = () => import("../infra/container.ts");\n`);
      plant("ports/reexport.ts", `export { thing } from "../application/things.ts";\n`);
      plant("adapters/fine.ts", `import { Elysia } from "elysia";\nimport { a } from "../application/a.ts";\n`);
      plant("infra/any.ts", `import { b } from "../adapters/fine.ts";\nimport pkg from "../package.json";\n`);
      expect(violations(root).sort()).toEqual([
        `application/lazy.ts imports "../infra/container.ts": application/ may not depend on infra/`,
        `domain/bad.ts imports "../adapters/sql/records.ts": domain/ may not depend on adapters/`,
        `domain/bad.ts imports "postgres": domain/ may not import packages`,
        `ports/reexport.ts imports "../application/things.ts": ports/ may not depend on application/`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("domain/ type-checks under Deno with no configuration", () => {
    const deno = join(PROJECT_ROOT, "node_modules", ".bin", "deno");
    const files = sourceFiles(join(PROJECT_ROOT, "domain")).map((file) => relative(PROJECT_ROOT, file));
    const run = Bun.spawnSync([deno, "check", "--no-config", "--quiet", ...files], { cwd: PROJECT_ROOT, env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } });
    const output = run.stdout.toString() + run.stderr.toString();
    expect(output).toBe("");
    expect(run.exitCode).toBe(0);
  });
});
