import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Argument parsing for every operator command, through `node:util`'s `parseArgs`: strict (an
 * unknown option is refused by name, exit 2), `--help`/`-h` prints the usage and exits 0. Import
 * nothing heavy beside it: a command loads wrangler and the worker's modules with `import()` only
 * after its arguments are parsed, so `--help` and a typo answer at once.
 */

export const USAGE_EXIT = 2;

export interface CommandLine<O extends Options> {
  /** The usage text `--help` prints. */
  help: string;
  options: O;
  /** Whether bare arguments (files, a key id) are allowed; default no. */
  positionals?: boolean;
  /** Default `process.argv.slice(2)`. */
  args?: string[];
}

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O & typeof HELP_OPTION; strict: true; allowPositionals: true }>
>;

export function parseCommandLine<const O extends Options>(
  command: CommandLine<O>,
): { values: Parsed<O>["values"]; positionals: string[] } {
  const options = { ...command.options, ...HELP_OPTION };
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: command.args ?? process.argv.slice(2),
      options,
      strict: true,
      allowPositionals: command.positionals ?? false,
    });
  } catch (err) {
    usageError(describeParseError(err, Object.keys(options)));
  }
  if (parsed.values.help) {
    console.log(command.help);
    process.exit(0);
  }
  return parsed as { values: Parsed<O>["values"]; positionals: string[] };
}

/** A mistake in how the command was called: one line naming it, exit 2. */
export function usageError(message: string): never {
  console.error(`${message}; see --help`);
  process.exit(USAGE_EXIT);
}

/** The command could not do its work: one line, exit 1. */
export function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}

/** Runs a command's body; whatever it throws is reported as one line, exit 1. */
export function runCommand(main: () => Promise<void>): void {
  main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
}

/** The option's value as a whole number in a range, or a usage error naming it. */
export function wholeNumber(name: string, text: string | undefined, min: number, max: number) {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value) || value < min || value > max)
    usageError(`--${name} takes a whole number from ${min} to ${max}, not "${text}"`);
  return value;
}

/** node:util's messages are long and quote differently per error; say the same thing in one line. */
export function describeParseError(err: unknown, known: string[]): string {
  const { code, message } = err as { code?: string; message: string };
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const name = quoted.replace(/^-+/, "");
    const near = known
      .map((k) => ({ k, distance: editDistance(k, name) }))
      .filter((c) => c.distance <= 2)
      .sort((x, y) => x.distance - y.distance)[0]?.k;
    return `unknown option ${quoted}${near ? ` (did you mean --${near}?)` : ""}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = /(--[\w-]+)/.exec(message)?.[1] ?? quoted;
    return message.includes("argument missing") ? `${flag} needs a value` : `${flag} takes no value`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return `unexpected argument "${quoted}"`;
  return message;
}

/** Optimal string alignment distance: a swapped pair of letters (`nmae`) counts as one edit. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => i + j * (i === 0 ? 1 : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
