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

/**
 * Runs `quiet` while `main` runs with the terminal's output: `quiet`'s output is held back and shown
 * only if it fails (at once, so a type error is not hidden behind a long run). Exits with the first
 * failure's code once both have ended.
 */
export async function runAlongside(
  quiet: [command: string, args: string[]],
  main: [command: string, args: string[]],
): Promise<void> {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const quietName = quiet.flat().join(" ");
  const mainName = main.flat().join(" ");
  console.log(`▶ ${quietName} (alongside ${mainName}; its output only if it fails)`);
  console.log(`▶ ${mainName}`);
  const held: Buffer[] = [];
  const quietChild = spawn(quiet[0], quiet[1], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  quietChild.stdout.on("data", (chunk: Buffer) => held.push(chunk));
  quietChild.stderr.on("data", (chunk: Buffer) => held.push(chunk));
  const quietDone = new Promise<number>((resolve) =>
    quietChild.once("close", (c, signal) => resolve(c ?? (signal ? 1 : 0))),
  ).then((code) => {
    if (code !== 0) {
      process.stderr.write(Buffer.concat(held));
      console.error(`✗ ${quietName} failed (exit ${code}) after ${seconds()} s`);
    }
    return { code, at: seconds() };
  });
  const mainCode = await new Promise<number>((resolve) =>
    spawn(main[0], main[1], { cwd: ROOT, stdio: "inherit" }).once("exit", (c, signal) =>
      resolve(c ?? (signal ? 1 : 0)),
    ),
  );
  const mainAt = seconds();
  const { code: quietCode, at: quietAt } = await quietDone;
  if (quietCode === 0) console.log(`✓ ${quietName} in ${quietAt} s`);
  if (mainCode !== 0) {
    console.error(`✗ ${mainName} failed (exit ${mainCode}) after ${mainAt} s`);
    process.exit(mainCode);
  }
  console.log(`✓ ${mainName} in ${mainAt} s`);
  if (quietCode !== 0) process.exit(quietCode);
}
