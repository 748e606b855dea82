import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../tools/lib/config";

const exec = promisify(execFile);
let stateDir: string;

/** Runs an operator command against this test's own local state; never throws, returns its outcome. */
async function run(script: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        STATE_DIR: stateDir,
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        WRANGLER_SEND_METRICS: "false",
      },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "windsock-callbacks-"));
  await exec(
    path.join(ROOT, "node_modules/.bin/wrangler"),
    ["d1", "migrations", "apply", "windsock", "--local", `--persist-to=${stateDir}`],
    {
      cwd: ROOT,
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
});

afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("npm run callbacks", () => {
  it("adds normalized prefixes for an account and lists them; refuses what the API refuses", async () => {
    const created = await run("tools/keys.ts", "create", "--name", "partner");
    expect(created.code).toBe(0);
    const publicId = /public id (app_\w+)/.exec(created.stderr)![1]!;

    const added = await run(
      "tools/callbacks.ts",
      "add",
      "https://Partner.example:443/cb",
      "--account",
      publicId,
    );
    expect(added.stdout).toContain("allowed https://partner.example/cb\n");
    expect(
      (await run("tools/callbacks.ts", "add", "http://localhost:9000/done", "--account", publicId)).code,
    ).toBe(0);

    const plainHttp = await run(
      "tools/callbacks.ts",
      "add",
      "http://partner.example/cb",
      "--account",
      publicId,
    );
    expect(plainHttp.code).toBe(1);
    expect(plainHttp.stderr).toContain("must use https");
    const unknown = await run("tools/callbacks.ts", "add", "https://x.example/", "--account", "app_nobody");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no account app_nobody");

    const listed = await run("tools/callbacks.ts", "list", "--account", publicId);
    const rows = listed.stdout.split("\n").filter((line) => line.startsWith("account|"));
    const urls = rows.map((line) => line.split("\t")[3]);
    expect(urls).toEqual(["https://partner.example/cb", "http://localhost:9000/done"]);
  });

  it("explains itself", async () => {
    const help = await run("tools/callbacks.ts", "--help");
    expect(help.stdout).toContain("npm run callbacks -- add <url> --account");
    const wrong = await run("tools/callbacks.ts", "frob");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("unknown command frob");
  });
});
