/**
 * Where the running service is, as `npm start` announces it in its env file: every tool's
 * defaults, so the walkthrough works on any ports. Kept free of heavy imports (`--help` is fast).
 */

export function serviceUrl(): string {
  return (process.env.WINDSOCK_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/+$/, "");
}

/** The relay's `host:port`. */
export function relayAddress(): string {
  return process.env.WINDSOCK_RELAY ?? `127.0.0.1:${process.env.TELEMETRY_PORT ?? 16060}`;
}

/** The file's text: `export` lines, so `. <file>` hands them to every `npm run` started after. */
export function envFileText(values: {
  url: string;
  apiKey: string;
  relay: string;
  stateDir: string;
  pilot: { username: string; password: string };
}): string {
  return [
    "# Written by npm start: the running copy's address and development API key. Load it with `. <this file>`.",
    `export WINDSOCK_URL=${values.url}`,
    `export WINDSOCK_API_KEY=${values.apiKey}`,
    `export WINDSOCK_RELAY=${values.relay}`,
    "# The development pilot of the local OpenID Provider (the SDKs' password login signs in as it).",
    `export WINDSOCK_PILOT_USERNAME=${values.pilot.username}`,
    `export WINDSOCK_PILOT_PASSWORD=${values.pilot.password}`,
    "# The operator commands (keys, callbacks, cors, importers) act on this copy's state.",
    `export STATE_DIR='${values.stateDir.replaceAll("'", "'\\''")}'`,
    "",
  ].join("\n");
}
