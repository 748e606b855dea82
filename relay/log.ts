/** Structured logs: one JSON object per line on stdout, filtered by level. */

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

export type Log = Record<LogLevel, (msg: string, fields?: Record<string, unknown>) => void>;

export function createLog(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Log {
  const entry =
    (at: LogLevel) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS[at] < LEVELS[level]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...fields })}\n`);
    };
  return { debug: entry("debug"), info: entry("info"), warn: entry("warn"), error: entry("error") };
}

export function isLogLevel(value: string): value is LogLevel {
  return value in LEVELS;
}
