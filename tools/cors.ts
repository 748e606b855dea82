import { parseCommandLine, runCommand, usageError } from "./lib/cli";
import type { ToolDb } from "./lib/db";

const HELP = `Manage the origins whose browser pages may call the API with an application's keys (CORS).
An application without origins of its own is held to the service's CORS_ALLOWED_ORIGINS
(wrangler.toml); one with origins, to them alone. Applications can also set theirs with
PUT /auth/v1/cors_origins.

Usage:
  npm run cors -- add <origin>... --account <account id or public id> [--remote]
      Allows the origins (https://app.example, http://localhost:5173) for the application.
  npm run cors -- remove <origin>... --account <account id or public id> [--remote]
      Takes them off its list; with none left, the service's setting applies again.
  npm run cors -- list [--account <account id or public id>] [--remote]
      Lists origins: account, public id, name, origin.

Options:
  --remote   act on the deployed D1 database (wrangler must be logged in) instead of STATE_DIR
  --help     show this help
Running workers apply a change within 10 s. Accounts and their ids: npm run keys:list`;

const [command, ...args] = process.argv.slice(2);
const OPTIONS = { account: { type: "string" }, remote: { type: "boolean" } } as const;
const COMMANDS = ["add", "remove", "list"];

async function findAccount(db: ToolDb, idOrPublicId: string) {
  const { findAccount } = await import("../worker/store/accounts");
  const found = await findAccount(db, idOrPublicId);
  if (!found) throw new Error(`no account ${idOrPublicId}; see npm run keys:list`);
  return found;
}

/** The account's list after adding or removing `values`; an entry that is no origin is an error. */
async function change(db: ToolDb, accountRef: string, values: string[], adding: boolean) {
  const { normalizeOrigins } = await import("../worker/domain/corsOrigins");
  const { listCorsOrigins, replaceCorsOrigins } = await import("../worker/store/corsOrigins");
  const given = normalizeOrigins(values, "origin");
  if (!given.ok) throw new Error(given.problems.map((p) => p.message).join("; "));
  const account = await findAccount(db, accountRef);
  const current = await listCorsOrigins(db, account.id);
  const next = adding ? [...current, ...given.value] : current.filter((o) => !given.value.includes(o));
  const checked = normalizeOrigins(next);
  if (!checked.ok) throw new Error(checked.problems.map((p) => p.message).join("; "));
  await replaceCorsOrigins(db, account.id, checked.value);
  return { account, origins: checked.value };
}

async function list(db: ToolDb, accountRef?: string) {
  const { accounts, corsOrigins } = await import("../schema");
  const { asc, eq } = await import("drizzle-orm");
  const only = accountRef ? await findAccount(db, accountRef) : undefined;
  return db
    .select({
      accountId: accounts.id,
      publicId: accounts.publicId,
      name: accounts.name,
      origin: corsOrigins.origin,
    })
    .from(corsOrigins)
    .innerJoin(accounts, eq(accounts.id, corsOrigins.accountId))
    .where(only ? eq(accounts.id, only.id) : undefined)
    .orderBy(asc(accounts.createdAt), asc(corsOrigins.origin))
    .all();
}

async function main() {
  if (command === undefined || command === "--help" || command === "-h") return console.log(HELP);
  if (!COMMANDS.includes(command)) usageError(`unknown command "${command}": use ${COMMANDS.join(", ")}`);
  const { values, positionals } = parseCommandLine({ help: HELP, args, options: OPTIONS, positionals: true });
  if (command !== "list" && (!values.account || positionals.length === 0))
    usageError(`usage: npm run cors -- ${command} <origin>... --account <id>`);
  if (command === "list" && positionals.length > 0) usageError(`unexpected argument "${positionals[0]}"`);
  const { withToolDb } = await import("./lib/db");
  await withToolDb(values.remote, async (db) => {
    if (command !== "list") {
      const { account, origins } = await change(db, values.account!, positionals, command === "add");
      console.log(
        origins.length > 0
          ? `${account.publicId} (${account.name}) allows ${origins.join(" ")}`
          : `${account.publicId} (${account.name}) has no origins of its own: CORS_ALLOWED_ORIGINS applies`,
      );
      return;
    }
    const rows = await list(db, values.account);
    if (rows.length === 0) console.log("no application lists origins: CORS_ALLOWED_ORIGINS applies to all");
    for (const r of rows) console.log(`${r.accountId}\t${r.publicId}\t${r.name}\t${r.origin}`);
  });
}

runCommand(main);
