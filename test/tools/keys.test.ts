import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
let stateDir: string;

async function cli(args: string[]) {
  return run(process.execPath, ["--import", "tsx", ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      STATE_DIR: stateDir,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
    },
  });
}

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "windsock-keys-"));
  await run(
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

describe("keys commands", () => {
  it("create prints the key alone on the last line; list shows it; revoke revokes it", async () => {
    const created = await cli(["tools/keys.ts", "create", "--name", "ci app"]);
    const lines = created.stdout.trim().split("\n");
    const key = lines[lines.length - 1]!;
    expect(key).toMatch(/^wsk_[0-9A-Za-z]{40}$/);

    const listed = await cli(["tools/keys.ts", "list"]);
    expect(listed.stdout).toContain("ci app");
    expect(listed.stdout).toContain(key.slice(0, 10));
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).toContain("active");

    const keyId = /^(key\|\S+)/m.exec(listed.stdout)![1]!;
    await cli(["tools/keys.ts", "revoke", keyId]);
    const after = await cli(["tools/keys.ts", "list"]);
    expect(after.stdout).toContain("revoked");
  });

  it("explains itself and refuses bad use", async () => {
    const help = await cli(["tools/keys.ts", "--help"]);
    expect(help.stdout).toContain("keys:create");
    await expect(cli(["tools/keys.ts", "create"])).rejects.toMatchObject({
      stderr: expect.stringContaining("--name"),
    });
    await expect(cli(["tools/keys.ts", "revoke", "key|nothing"])).rejects.toMatchObject({
      stderr: expect.stringContaining("no active key"),
    });
  });
});
