import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runTool } from "./runTool";

/**
 * `npm run demo`'s command line. The whole run (a flight flown through the relay, its live page)
 * runs against the test service in test/e2e/demo.test.ts.
 */

describe("npm run demo", () => {
  it("--help says what it does and exits 0", async () => {
    const { code, stdout } = await runTool("tools/demo.ts", ["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Jacksboro/);
    expect(stdout).toMatch(/--duration <s>/);
  });

  it("without a running copy, says how to start one (exit 2)", async () => {
    const state = mkdtempSync(path.join(os.tmpdir(), "windsock-demo-"));
    const { code, stderr } = await runTool("tools/demo.ts", [], {
      env: { ...process.env, STATE_DIR: state },
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/no running copy found .*npm start/);
    writeFileSync(path.join(state, "env"), "export WINDSOCK_URL=http://127.0.0.1:9\n");
    const partial = await runTool("tools/demo.ts", [], { env: { ...process.env, STATE_DIR: state } });
    expect(partial.stderr).toMatch(/lacks WINDSOCK_URL, WINDSOCK_API_KEY or WINDSOCK_RELAY/);
    expect((await runTool("tools/demo.ts", ["--duration", "1"])).stderr).toMatch(
      /--duration must be 5 to 3600/,
    );
  });
});
