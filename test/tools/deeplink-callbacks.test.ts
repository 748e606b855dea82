import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratedState } from "./operatorState";

let state: Awaited<ReturnType<typeof migratedState>>;
const run = (script: string, ...args: string[]) => state.run(script, ...args);

beforeAll(async () => {
  state = await migratedState("callbacks");
});

afterAll(() => state.remove());

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
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown command "frob"');
  });
});
