import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";

/**
 * Details of a start that a user cannot act on (development-only warnings of the libraries, long
 * lists of data notes), kept in `$STATE_DIR/start.log` instead of the terminal.
 */
export function startLog(stateDir: string) {
  const file = path.join(stateDir, "start.log");
  return {
    file,
    write(text: string): void {
      mkdirSync(stateDir, { recursive: true });
      appendFileSync(file, `${new Date().toISOString()} ${stripVTControlCharacters(text).trimEnd()}\n`);
    },
  };
}

/**
 * Whether a line of wrangler's output belongs to its warning that cron triggers do not run in local
 * development (they need `curl …/cdn-cgi/local/scheduled`; the airspace sync has its own command):
 * the warning line, its advice and the blank lines around them. Stateful: one per stream.
 */
export function cronWarningLines(): (line: string) => boolean {
  let inside = false;
  return (line) => {
    const plain = stripVTControlCharacters(line);
    if (/Scheduled Workers are not automatically triggered/.test(plain)) {
      inside = true;
      return true;
    }
    if (!inside) return false;
    if (/cron-triggers/.test(plain)) inside = false;
    return true;
  };
}

/** oidc-provider's notices for its quick-start defaults, which the development provider uses on purpose. */
export function isOidcDevelopmentNotice(text: string): boolean {
  return /^oidc-provider (WARNING|NOTICE):/.test(stripVTControlCharacters(text));
}
