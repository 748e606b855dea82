import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../tools/lib/config";

const exec = promisify(execFile);
const OFFLINE = { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** A throwaway STATE_DIR with the D1 migrations applied, for running operator commands against. */
export async function migratedState(prefix: string) {
  const stateDir = await mkdtemp(path.join(os.tmpdir(), `windsock-${prefix}-`));
  await exec(
    path.join(ROOT, "node_modules/.bin/wrangler"),
    ["d1", "migrations", "apply", "windsock", "--local", `--persist-to=${stateDir}`],
    { cwd: ROOT, env: { ...process.env, ...OFFLINE } },
  );
  return {
    stateDir,
    /** Runs `tools/<script>` on this state as an operator would; never throws, returns the outcome. */
    async run(script: string, ...args: string[]): Promise<Outcome> {
      try {
        const { stdout, stderr } = await exec(process.execPath, ["--import", "tsx", script, ...args], {
          cwd: ROOT,
          env: { ...process.env, ...OFFLINE, STATE_DIR: stateDir },
        });
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    },
    remove: () => rm(stateDir, { recursive: true, force: true }),
  };
}
