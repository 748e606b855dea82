import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install -y chromium`); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * True when Chromium is here. Otherwise says so loudly; with REQUIRE_BROWSER=1 (CI) that is an
 * error, so a missing browser can never pass as a green run.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const required = process.env.REQUIRE_BROWSER === "1";
  const bar = "!".repeat(78);
  const message = [
    bar,
    `BROWSER TESTS ${required ? "FAILED" : "SKIPPED"}: no Chromium at ${CHROMIUM}.`,
    "Install it with: apt-get update && apt-get install -y chromium",
    "(REQUIRE_BROWSER=1, as CI sets it, turns this skip into a failure.)",
    bar,
  ].join("\n");
  if (required) throw new Error(message);
  console.warn(`\n${message}\n`);
  return false;
}

const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  /** Requests the page made to anything but this machine: the page must need none. */
  external: string[];
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (its own --user-data-dir) and the given screen. */
export async function launch(
  screen: { width: number; height: number; mobile: boolean },
  options: { javaScript?: boolean; userAgent?: string } = {},
): Promise<Browser> {
  const profile = await mkdtemp(path.join(os.tmpdir(), "windsock-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: screen.width, height: screen.height },
    isMobile: screen.mobile,
    hasTouch: screen.mobile,
    locale: "en-US",
    javaScriptEnabled: options.javaScript ?? true,
    userAgent: options.userAgent,
  });
  const external: string[] = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1" || url.protocol === "data:") return route.continue();
    external.push(url.href);
    return route.abort();
  });
  return {
    context,
    external,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
