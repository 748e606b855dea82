import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);
// Not tools/lib/config's ROOT: importing it fixes STATE_DIR for the test file's own later imports.
const ROOT = path.resolve(import.meta.dirname, "../..");

/** wrangler and Miniflare offline: no `request.cf` download, no metrics. */
export const OFFLINE = { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

/** For `imports`: makes wrangler and Miniflare unloadable, so a command that needs them fails. */
export const NO_HEAVY = path.join(import.meta.dirname, "noHeavyImports.mjs");

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs an operator command (a script under tools/) as `npm run` does, through tsx, offline. Never
 * throws: the exit code and both outputs, for the test to judge.
 */
export async function runTool(
  script: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; imports?: string[] } = {},
): Promise<Outcome> {
  const imports = ["tsx", ...(options.imports ?? [])].flatMap((module) => ["--import", module]);
  try {
    const { stdout, stderr } = await exec(process.execPath, [...imports, script, ...args], {
      cwd: ROOT,
      env: { ...(options.env ?? process.env), ...OFFLINE },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as Outcome;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
