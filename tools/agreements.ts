import { readFileSync } from "node:fs";
import { parseCommandLine, runCommand, usageError } from "./lib/cli";

const HELP = `Manage the agreements an authority asks pilots to accept (the SDKs' /agreements/v2: pilots
list them, read them as Markdown, plain text or PDF, and agree to their current version).

Usage:
  npm run agreements -- set <id> --authority <authority id> --version <version> --title <title>
      --file <text.md> [--type TERMS_AND_CONDITIONS] [--remote]
      Creates the agreement, or replaces its text; a new --version asks every pilot again.
  npm run agreements -- list [--remote]
      Lists agreements: id, authority, version, type, title.
  npm run agreements -- remove <id> [--remote]
      Removes the agreement and every pilot's acceptance of it.

Authorities are those of briefings and evaluations: faa-laanc (LAANC), windsock (the service's own
plan checks), or an ED-269 zone's authority.

Options:
  --remote   act on the deployed D1 database (wrangler must be logged in) instead of STATE_DIR
  --help     show this help`;

const [command, ...args] = process.argv.slice(2);
const OPTIONS = {
  authority: { type: "string" },
  version: { type: "string" },
  title: { type: "string" },
  file: { type: "string" },
  type: { type: "string" },
  remote: { type: "boolean" },
} as const;
const COMMANDS = ["set", "list", "remove"];
const ID = /^[A-Za-z0-9][\w.-]{0,63}$/;

async function main() {
  if (command === undefined || command === "--help" || command === "-h") return console.log(HELP);
  if (!COMMANDS.includes(command)) usageError(`unknown command "${command}": use ${COMMANDS.join(", ")}`);
  const { values, positionals } = parseCommandLine({ help: HELP, args, options: OPTIONS, positionals: true });
  const { withToolDb } = await import("./lib/db");
  const store = await import("../worker/store/agreements");
  if (command === "list") {
    if (positionals.length > 0) usageError(`unexpected argument "${positionals[0]}"`);
    return withToolDb(values.remote, async (db) => {
      const rows = await store.allAgreements(db);
      if (rows.length === 0) console.log("no agreements: add one with npm run agreements -- set");
      for (const a of rows)
        console.log(`${a.id}\t${a.authorityId}\t${a.version}\t${a.type ?? "-"}\t${a.title}`);
    });
  }
  const [id, extra] = positionals;
  if (!id || extra !== undefined) usageError(`usage: npm run agreements -- ${command} <id> (see --help)`);
  if (!ID.test(id)) usageError(`"${id}" is not an agreement id: letters, digits, . _ - (at most 64)`);
  if (command === "remove")
    return withToolDb(values.remote, async (db) => {
      console.log((await store.removeAgreement(db, id)) ? `removed ${id}` : `no agreement ${id}`);
    });
  for (const name of ["authority", "version", "title", "file"] as const)
    if (!values[name]) usageError(`set needs --${name} (see --help)`);
  if (values.type !== undefined && values.type !== "TERMS_AND_CONDITIONS")
    usageError(`--type: TERMS_AND_CONDITIONS (the one type the SDKs know), or leave it out`);
  let text: string;
  try {
    text = readFileSync(values.file!, "utf8");
  } catch (err) {
    usageError(`cannot read --file ${values.file}: ${(err as Error).message}`);
  }
  if (text.trim() === "") usageError(`--file ${values.file} is empty`);
  await withToolDb(values.remote, async (db) => {
    await store.saveAgreement(db, {
      id,
      authorityId: values.authority!,
      version: values.version!,
      type: values.type ?? null,
      title: values.title!,
      text,
    });
    console.log(`${id} (${values.authority}) is at version ${values.version}`);
  });
}

runCommand(main);
