import { describe, expect, it } from "vitest";
import { runTool } from "./runTool";

/** What npm start and the tests hand wrangler dev for X_LOCAL_OBSERVABILITY, given the caller's own. */
async function traceCaptureGiven(own: string | undefined): Promise<string> {
  const env = { ...process.env };
  if (own === undefined) delete env.X_LOCAL_OBSERVABILITY;
  else env.X_LOCAL_OBSERVABILITY = own;
  const read =
    "import('./tools/lib/config.ts').then((m) => console.log(m.WRANGLER_ENV.X_LOCAL_OBSERVABILITY))";
  const outcome = await runTool("-e", [read], { env });
  expect(outcome.stderr).toBe("");
  return outcome.stdout.trim();
}

describe("wrangler dev's environment", () => {
  it("turns its per-request trace capture off unless the user asks for it", async () => {
    expect(await traceCaptureGiven(undefined)).toBe("false");
    expect(await traceCaptureGiven("true")).toBe("true");
  });
});
