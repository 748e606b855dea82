import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY_CACHE_MS } from "../../worker/middleware/apiKey";
import { API_KEY_PREFIX_LENGTH } from "../../worker/services/apiKeys";
import { migratedState } from "./operatorState";

let state: Awaited<ReturnType<typeof migratedState>>;
const keys = (...args: string[]) => state.run("tools/keys.ts", ...args);

beforeAll(async () => {
  state = await migratedState("keys");
});

afterAll(() => state.remove());

describe("keys commands", () => {
  it("create prints the key alone on the last line; list shows it; revoke revokes it", async () => {
    const created = await keys("create", "--name", "ci app");
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    const key = lines[lines.length - 1]!;
    expect(key).toMatch(/^wsk_[0-9A-Za-z]{40}$/);

    const listed = await keys("list");
    expect(listed.stdout).toContain("ci app");
    expect(listed.stdout).toContain(`${key.slice(0, API_KEY_PREFIX_LENGTH)}…`);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).toContain("active");

    const keyId = /^(key\|\S+)/m.exec(listed.stdout)![1]!;
    const revoked = await keys("revoke", keyId);
    expect(revoked.code).toBe(0);
    // The documented bound: worker isolates trust a key lookup for 10 s.
    expect(revoked.stdout).toContain("workers refuse it within 10 s");
    expect((await keys("list")).stdout).toContain("revoked");
  });

  it("explains itself and refuses bad use", async () => {
    const help = (await keys("--help")).stdout;
    expect(help).toContain("keys:create");
    expect(help).toContain(`within ${KEY_CACHE_MS / 1000} seconds`);
    const noName = await keys("create");
    expect(noName.code).not.toBe(0);
    expect(noName.stderr).toContain("--name");
    const unknown = await keys("revoke", "key|nothing");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("no active key");
  });
});
