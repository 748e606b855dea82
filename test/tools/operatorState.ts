import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { migrateLocalState } from "../localState";
import { type Outcome, runTool } from "./runTool";

/** A throwaway STATE_DIR with the D1 migrations applied, for running operator commands against. */
export async function migratedState(prefix: string) {
  const stateDir = await mkdtemp(path.join(os.tmpdir(), `windsock-${prefix}-`));
  await migrateLocalState(stateDir);
  return {
    stateDir,
    /** Runs `tools/<script>` on this state as an operator would; never throws, returns the outcome. */
    run: (script: string, ...args: string[]): Promise<Outcome> =>
      runTool(script, args, { env: { ...process.env, STATE_DIR: stateDir } }),
    remove: () => rm(stateDir, { recursive: true, force: true }),
  };
}
