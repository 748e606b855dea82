import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { echoWithoutProbes, isProbeLogLine } from "../../tools/lib/processes";

// wrangler's request log lines as npm start receives them, colours included.
const PROBE =
  "[wrangler:info] \u001b[1mHEAD\u001b[22m /health \u001b[32m\u001b[1m200\u001b[22m OK \u001b[39m\u001b[90m(6ms)\u001b[39m";
const USER_HEALTH = "[wrangler:info] GET /health 200 OK (5ms)";
const USER_CALL = "[wrangler:info] GET /elevation/v1/ele 200 OK (85ms)";

describe("npm start's console", () => {
  it("knows its own health probes' log lines, coloured or not, from a user's requests", () => {
    expect(isProbeLogLine(PROBE)).toBe(true);
    expect(isProbeLogLine("[wrangler:info] HEAD /health 200 OK (7ms)")).toBe(true);
    expect(isProbeLogLine(USER_HEALTH)).toBe(false);
    expect(isProbeLogLine(USER_CALL)).toBe(false);
    // A failing probe is shown: it is news.
    expect(isProbeLogLine("[wrangler:info] HEAD /health 503 Service Unavailable (2ms)")).toBe(false);
  });

  it("echoes the worker's output line by line without the probes", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let echoed = "";
    output.on("data", (chunk) => {
      echoed += chunk;
    });
    echoWithoutProbes(input, output);
    input.write(`${PROBE}\n${USER_CALL}\n${PROBE}\n`);
    input.end(`${USER_HEALTH}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(echoed).toBe(`${USER_CALL}\n${USER_HEALTH}\n`);
  });
});
