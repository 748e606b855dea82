import { parseArgs } from "node:util";
import { createLog, isLogLevel, type Log, type LogLevel } from "./log";

/**
 * What the relay host's commands (the UDP relay, the traffic broker) share: options that are a flag
 * or an environment variable with a default, and a process that runs until SIGTERM or SIGINT.
 */

type Defaults<T> = Record<string, readonly [variable: string, fallback: T]>;

export interface Options<N extends Defaults<number>, T extends Defaults<string | undefined>> {
  /** A number ≥ 0 (a whole one ≤ 65535 for a `…port`); flag, else variable, else the default. */
  number(name: keyof N & string): number;
  /** Flag, else variable, else the default; an empty value counts as unset. */
  text<K extends keyof T & string>(name: K): T[K][1] | string;
  /** A flag without a value. */
  switch(name: string): boolean;
  logLevel: LogLevel;
}

/**
 * Reads flags (which win) and environment variables; `help` when --help was asked for. Throws with a
 * message naming the bad option and its variable. Every command has `--log-level` [LOG_LEVEL].
 */
export function readOptions<N extends Defaults<number>, T extends Defaults<string | undefined>>(
  argv: string[],
  env: Record<string, string | undefined>,
  spec: { numeric: N; text: T; switches?: readonly string[] },
): Options<N, T> | "help" {
  const valued = [...Object.keys(spec.numeric), ...Object.keys(spec.text), "log-level"];
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(valued.map((name) => [name, { type: "string" as const }])),
      ...Object.fromEntries((spec.switches ?? []).map((name) => [name, { type: "boolean" as const }])),
      help: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) return "help";
  const raw = (name: string, variable: string) => {
    const value = (values as Record<string, string | undefined>)[name] ?? env[variable];
    return value === "" ? undefined : value;
  };
  const logLevel = raw("log-level", "LOG_LEVEL") ?? "info";
  if (!isLogLevel(logLevel))
    throw new Error(`--log-level must be debug, info, warn or error, not "${logLevel}"`);
  return {
    number(name) {
      const [variable, fallback] = spec.numeric[name]!;
      const given = raw(name, variable);
      if (given === undefined) return fallback;
      const value = Number(given);
      const port = name.endsWith("port");
      if (!Number.isFinite(value) || value < 0 || (port && (!Number.isInteger(value) || value > 65535)))
        throw new Error(
          `--${name} (${variable}) must be ${port ? "a port number (0 to 65535)" : "a number ≥ 0"}, not "${given}"`,
        );
      return value;
    },
    text(name) {
      const [variable, fallback] = spec.text[name]!;
      return raw(name, variable) ?? fallback;
    },
    switch: (name) => Boolean((values as Record<string, boolean | undefined>)[name]),
    logLevel,
  };
}

/**
 * A command's whole life: options read (--help printed; a bad option exits 2 with what to do), the
 * service started, stopped on SIGTERM or SIGINT. `exitWithinMs` bounds a stop that waits on peers.
 */
export function runCommand<C extends { logLevel: LogLevel }>(command: {
  /** As the failure line names it: "relay", "traffic broker". */
  name: string;
  help: string;
  readConfig(argv: string[], env: Record<string, string | undefined>): C | "help";
  start(config: C, log: Log): Promise<{ close(): Promise<void> }>;
  exitWithinMs?: number;
}): void {
  const main = async () => {
    let config: C | "help";
    try {
      config = command.readConfig(process.argv.slice(2), process.env);
    } catch (err) {
      console.error(`error: ${(err as Error).message}\nRun with --help for the options.`);
      process.exit(2);
    }
    if (config === "help") {
      console.log(command.help);
      return;
    }
    const log = createLog(config.logLevel);
    const service = await command.start(config, log);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("stopping", { signal });
      service.close().then(
        () => {
          log.info("stopped");
          process.exit(0);
        },
        (err) => {
          log.error("stopping failed", { error: String(err) });
          process.exit(1);
        },
      );
      if (command.exitWithinMs !== undefined) setTimeout(() => process.exit(0), command.exitWithinMs).unref();
    };
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
  };
  main().catch((err) => {
    console.error(
      JSON.stringify({
        time: new Date().toISOString(),
        level: "error",
        msg: `${command.name} failed to start`,
        error: String(err),
      }),
    );
    process.exit(1);
  });
}
