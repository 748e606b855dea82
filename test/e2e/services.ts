import { spawn } from "node:child_process";
import path from "node:path";
import { ROOT, WRANGLER_ENV } from "../../tools/lib/config";
import { ensureDevVars } from "../../tools/lib/devVars";
import { openLocalPlatform } from "../../tools/lib/localPlatform";
import { type Process, type RelayProcess, startRelayProcess, track } from "../../tools/lib/processes";
import { whileLocked } from "../../tools/lib/retry";
import { sha256Hex } from "../../worker/lib/hash";
import { newId, randomBase62 } from "../../worker/lib/ids";
import { migrateLocalState } from "../localState";

/** Real processes for end-to-end tests: `wrangler dev` serving the worker, and the relay. */

export { freePort } from "../browser/service";

/** Migrates a fresh local state directory and mints an API key (and its account) in it. */
export async function prepareState(stateDir: string): Promise<{ apiKey: string; accountId: string }> {
  await migrateLocalState(stateDir);
  return addAccount(stateDir, "e2e");
}

/**
 * A new account with one API key (no rate limit to speak of) in a migrated local state, written as
 * the operator commands write (tools/lib/localPlatform.ts): also while `wrangler dev` serves it.
 */
export async function addAccount(
  stateDir: string,
  name: string,
): Promise<{ apiKey: string; accountId: string }> {
  const apiKey = `wsk_${randomBase62(40)}`;
  const accountId = newId("account");
  const now = Date.now();
  const keyHash = await sha256Hex(apiKey);
  const platform = await openLocalPlatform(stateDir);
  try {
    const { DB } = platform.env;
    // The running copy may hold the file's lock meanwhile, as for the operator tools.
    await whileLocked(() =>
      DB.batch([
        DB.prepare(
          "INSERT INTO accounts (id, public_id, name, rate_limit_per_minute, created_at) VALUES (?, ?, ?, ?, ?)",
        ).bind(accountId, `app_${randomBase62(12)}`, name, 1_000_000, now),
        DB.prepare(
          "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        ).bind(newId("key"), accountId, name, keyHash, apiKey.slice(0, 10), now),
      ]),
    );
  } finally {
    await platform.dispose();
  }
  return { apiKey, accountId };
}

/** `wrangler dev` on the given port and state, with the development secrets of .dev.vars (and `vars`). */
export async function startWorker(
  stateDir: string,
  port: number,
  vars: Record<string, string> = {},
): Promise<Process & { baseUrl: string }> {
  ensureDevVars();
  const child = spawn(
    path.join(ROOT, "node_modules/.bin/wrangler"),
    [
      "dev",
      "--ip=127.0.0.1",
      `--port=${port}`,
      `--persist-to=${stateDir}`,
      "--inspector-port=0",
      "--show-interactive-dev-session=false",
      "--log-level=warn",
      ...Object.entries(vars).map(([name, value]) => `--var=${name}:${value}`),
    ],
    { cwd: ROOT, env: WRANGLER_ENV, stdio: ["ignore", "pipe", "pipe"] },
  );
  const worker = track(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`wrangler dev exited: ${worker.output.slice(-20).join("\n")}`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return { ...worker, baseUrl };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`wrangler dev did not answer: ${worker.output.slice(-20).join("\n")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The relay as a process on free ports, authenticated with the development RELAY_SECRET. */
export function startRelay(workerUrl: string, spoolDir: string, flags: string[] = []): Promise<RelayProcess> {
  return startRelayProcess({ workerUrl, spoolDir, flags, secret: ensureDevVars().RELAY_SECRET! });
}
