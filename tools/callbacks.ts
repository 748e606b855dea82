import { parseCommandLine, runCommand, usageError } from "./lib/cli";
import type { ToolDb } from "./lib/db";

const HELP = `Manage the callback URL prefixes each application (account) allows for deep links.
A flight-creation link whose callback_url starts with none of its account's prefixes is refused.

Usage:
  npm run callbacks -- add <url> --account <account id or public id> [--remote]
      Allows callbacks under <url> (https; http also for localhost in local development).
  npm run callbacks -- list [--account <account id or public id>] [--remote]
      Lists prefixes: account, public id, url, added.

Options:
  --remote   act on the deployed D1 database (wrangler must be logged in) instead of STATE_DIR
  --help     show this help
Accounts and their ids: npm run keys:list`;

const [command, ...args] = process.argv.slice(2);
const OPTIONS = { account: { type: "string" }, remote: { type: "boolean" } } as const;

async function account(db: ToolDb, idOrPublicId: string) {
  const { findAccount } = await import("../worker/store/accounts");
  const found = await findAccount(db, idOrPublicId);
  if (!found) throw new Error(`no account ${idOrPublicId}; see npm run keys:list`);
  return found;
}

/** Registers a prefix for an account; returns it as stored (normalized). */
async function addPrefix(db: ToolDb, remote: boolean, accountRef: string, url: string): Promise<string> {
  const { callbackPrefixProblem, normalizePrefix } = await import("../worker/domain/deeplink/callbacks");
  const { callbackPrefixes } = await import("../schema");
  const problem = callbackPrefixProblem(url, !remote);
  if (problem) throw new Error(`${url} ${problem}`);
  const { id } = await account(db, accountRef);
  const normalized = normalizePrefix(url);
  await db
    .insert(callbackPrefixes)
    .values({ accountId: id, url: normalized, createdAt: Date.now() })
    .onConflictDoNothing()
    .run();
  return normalized;
}

async function listPrefixes(db: ToolDb, accountRef?: string) {
  const { accounts, callbackPrefixes } = await import("../schema");
  const { asc, eq } = await import("drizzle-orm");
  const only = accountRef ? await account(db, accountRef) : undefined;
  return db
    .select({
      accountId: accounts.id,
      publicId: accounts.publicId,
      name: accounts.name,
      url: callbackPrefixes.url,
      createdAt: callbackPrefixes.createdAt,
    })
    .from(callbackPrefixes)
    .innerJoin(accounts, eq(accounts.id, callbackPrefixes.accountId))
    .where(only ? eq(accounts.id, only.id) : undefined)
    .orderBy(asc(accounts.createdAt), asc(callbackPrefixes.createdAt), asc(callbackPrefixes.url))
    .all();
}

async function main() {
  if (command === undefined || command === "--help" || command === "-h") return console.log(HELP);
  if (command !== "add" && command !== "list") usageError(`unknown command "${command}": use add or list`);
  const { values, positionals } = parseCommandLine({ help: HELP, args, options: OPTIONS, positionals: true });
  const remote = values.remote ?? false;
  const [url, extra] = positionals;
  if (command === "add" && (!values.account || !url))
    usageError("usage: npm run callbacks -- add <url> --account <id>");
  if (extra !== undefined || (command === "list" && url !== undefined))
    usageError(`unexpected argument "${extra ?? url}"`);
  const { withToolDb } = await import("./lib/db");
  await withToolDb(remote, async (db) => {
    if (command === "add") {
      console.log(`allowed ${await addPrefix(db, remote, values.account!, url!)}`);
      return;
    }
    const prefixes = await listPrefixes(db, values.account);
    if (prefixes.length === 0)
      console.log("no callback prefixes yet: npm run callbacks -- add <url> --account <id>");
    for (const p of prefixes) {
      console.log(
        `${p.accountId}\t${p.publicId}\t${p.name}\t${p.url}\t${new Date(p.createdAt).toISOString()}`,
      );
    }
  });
}

runCommand(main);
