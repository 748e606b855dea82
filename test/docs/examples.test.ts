import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../tools/lib/config";
import { type Service, startService } from "../browser/service";

/**
 * Every command block of the README and of docs/ runs here, against the service the project's
 * files share, on the ports it was given: an example that breaks fails `npm test`. A block that
 * cannot run says why in a `<!-- not run: … -->` comment on the line before it.
 */

const run = promisify(execFile);
/**
 * A copy of its own, not the browser files' shared one: the examples run the key and account tools,
 * which open the running copy's local D1 from another process, and a page of another file that read
 * the database meanwhile met SQLite's "database is locked".
 */
let service: Service;
beforeAll(async () => {
  service = await startService({ name: "docs-service" });
}, 300_000);
afterAll(() => service?.stop());
const PAGES = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

interface Block {
  line: number;
  language: string;
  code: string;
  notRun?: string;
}

function fencedBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!)) body.push(lines[i]!);
    let before = start - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const notRun = /^<!-- not run: (.+) -->$/.exec(lines[before]?.trim() ?? "")?.[1];
    blocks.push({ line: start + 1, language: open[1]!, code: body.join("\n"), notRun });
  }
  return blocks;
}

/** Any answer of 400 or more stops the page's script, with the answer's body in the output. */
const PRELUDE = `set -euo pipefail
curl() { command curl --fail-with-body --silent --show-error --max-time 60 "$@"; }
`;

/** The shell a reader has after `npm start`: none of the test runner's WINDSOCK_* or state settings. */
function readerEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(WINDSOCK_|STATE_DIR$|PORT$|TELEMETRY_PORT$)/.test(name),
    ),
  );
  return { ...env, NO_COLOR: "1" };
}

describe("the documentation's examples", () => {
  it("mark every block that does not run, with a reason", () => {
    for (const page of PAGES) {
      for (const block of fencedBlocks(readFileSync(path.join(ROOT, page), "utf8"))) {
        if (block.notRun !== undefined)
          expect(block.notRun.length, `${page}:${block.line}`).toBeGreaterThan(10);
      }
    }
  });

  it("name no file a clone lacks", () => {
    for (const page of PAGES) {
      const text = readFileSync(path.join(ROOT, page), "utf8");
      expect(text, page).not.toMatch(/\.\.\/shared|spec\/service-spec\.md|CONTRACT\.md|DATA\.md/);
      for (const [, target] of text.matchAll(/\]\(((?!https?:|#)[^)#\s]+)/g)) {
        const resolved = path.resolve(path.dirname(path.join(ROOT, page)), target!);
        expect(() => readFileSync(resolved), `${page} links to ${target}`).not.toThrow();
      }
    }
  });

  for (const page of PAGES) {
    const blocks = fencedBlocks(readFileSync(path.join(ROOT, page), "utf8"));
    const shell = blocks.filter((b) => b.language === "sh" && b.notRun === undefined);
    const typescript = blocks.filter((b) => b.language === "ts" && b.notRun === undefined);
    if (shell.length === 0 && typescript.length === 0) continue;

    it(`run as written: ${page}`, { timeout: 300_000 }, async () => {
      // A reader's folder: the env file where npm start puts it, scratch files (plan.json) beside it.
      const cwd = path.join(ROOT, "tmp/docs-examples", page.replace(/[/.]/g, "_"));
      rmSync(cwd, { recursive: true, force: true });
      mkdirSync(path.join(cwd, ".windsock"), { recursive: true });
      copyFileSync(service.envFile, path.join(cwd, ".windsock/env"));
      const env = readerEnvironment();
      if (shell.length > 0) {
        const script = PRELUDE + shell.map((b) => `# ${page}:${b.line}\n${b.code}`).join("\n");
        const result = await run("bash", ["-c", script], { cwd, env, maxBuffer: 64 << 20 }).catch(
          (err: { stdout: string; stderr: string; code: number }) => err,
        );
        expect(
          "code" in result ? result.code : 0,
          `${page}'s blocks failed:\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
        ).toBe(0);
      }
      for (const block of typescript) {
        // The example imports from the project as a file at its root would (./worker/client).
        const file = path.join(ROOT, `tmp-docs-example-${process.pid}-${block.line}.ts`);
        try {
          writeFileSync(file, block.code);
          const setup = `. ${JSON.stringify(path.join(cwd, ".windsock/env"))} && ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(file)}`;
          const result = await run("bash", ["-c", `set -euo pipefail; ${setup}`], { cwd: ROOT, env }).catch(
            (err: { stdout: string; stderr: string; code: number }) => err,
          );
          expect(
            "code" in result ? result.code : 0,
            `${page}:${block.line}:\n${result.stdout}\n${result.stderr}`,
          ).toBe(0);
        } finally {
          rmSync(file, { force: true });
        }
      }
    });
  }
});
