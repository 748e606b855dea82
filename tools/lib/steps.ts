import { spawn } from "node:child_process";
import { ROOT } from "./config";

/**
 * Runs commands one after another with the terminal's output, each line of progress naming the step
 * and its time; the first failure ends the run with that step's exit code.
 */
export async function runSteps(steps: [command: string, args: string[]][]): Promise<void> {
  for (const [command, args] of steps) {
    const name = [command, ...args].join(" ");
    const started = Date.now();
    console.log(`▶ ${name}`);
    const code = await new Promise<number>((resolve) =>
      spawn(command, args, { cwd: ROOT, stdio: "inherit" }).once("exit", (c, signal) =>
        resolve(c ?? (signal ? 1 : 0)),
      ),
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (code !== 0) {
      console.error(`✗ ${name} failed (exit ${code}) after ${seconds} s`);
      process.exit(code);
    }
    console.log(`✓ ${name} in ${seconds} s`);
  }
}
