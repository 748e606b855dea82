import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "../../tools/lib/config";
import { type Browser, browserAvailable, launch } from "./chromium";

/**
 * `npm run demo` against the test service, found through its env file as a user's copy would be:
 * it makes a flight over real terrain, flies it through the relay, prints the live page's link and
 * ends the flight; that link in Chromium then shows the ended flight's whole track.
 */

const available = browserAvailable();
const service = inject("service");
let browser: Browser;

beforeAll(async () => {
  if (available) browser = await launch({ width: 1280, height: 900, mobile: false });
});

afterAll(async () => {
  await browser?.close();
});

describe("npm run demo", () => {
  it("flies a flight through the relay, prints its live page and ends it", async () => {
    const output = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "tools/demo.ts", "--duration", "6", "--no-open"],
        {
          cwd: ROOT,
          env: { ...process.env, STATE_DIR: service.stateDir, DISPLAY: "" },
        },
      );
      let text = "";
      child.stdout.on("data", (c: Buffer) => {
        text += c.toString();
      });
      child.stderr.on("data", (c: Buffer) => {
        text += c.toString();
      });
      child.once("exit", (code) => resolve({ code, text }));
    });
    expect(output.code, output.text).toBe(0);
    expect(output.text).toMatch(/Terrain: (\d+) of \1 samples/);
    expect(output.text).toMatch(/Sent \d+ datagrams/);
    expect(output.text).toMatch(/Ended the flight/);
    const link = /(http:\/\/\S+\/live\?ticket=\S+)/.exec(output.text)![1]!;
    expect(link.startsWith(service.baseUrl)).toBe(true);
    if (!available) return;
    const page = await browser.context.newPage();
    await page.goto(link);
    await page.waitForFunction(() => Number(document.getElementById("v-records")?.textContent) >= 40, null, {
      timeout: 30_000,
    });
    expect(await page.title()).toMatch(/^Ended flight of /);
    expect(await page.isVisible("#downloads")).toBe(true);
    expect(Number.parseFloat((await page.textContent("#v-agl"))!)).toBeCloseTo(50, -1);
  }, 90_000);
});
