import { callbackPrefixProblem, normalizePrefix } from "../worker/domain/deeplink/callbacks";
import { fail, parseArgs } from "./lib/config";
import { openTarget, type Target } from "./lib/target";

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

interface AccountRow {
  id: string;
  public_id: string;
  name: string;
}

async function findAccount(target: Target, idOrPublicId: string): Promise<AccountRow> {
  const [account] = await target.query<AccountRow>(
    "SELECT id, public_id, name FROM accounts WHERE id = ? OR public_id = ?",
    [idOrPublicId, idOrPublicId],
  );
  if (!account) throw new Error(`no account ${idOrPublicId}; see npm run keys:list`);
  return account;
}

/** Registers a prefix for an account; returns it as stored (normalized). */
async function addPrefix(target: Target, accountRef: string, url: string): Promise<string> {
  const problem = callbackPrefixProblem(url, !target.remote);
  if (problem) throw new Error(`${url} ${problem}`);
  const account = await findAccount(target, accountRef);
  const normalized = normalizePrefix(url);
  await target.execute([
    {
      sql: "INSERT INTO callback_prefixes (account_id, url, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
      params: [account.id, normalized, Date.now()],
    },
  ]);
  return normalized;
}

interface PrefixListing {
  account_id: string;
  public_id: string;
  name: string;
  url: string;
  created_at: number;
}

async function listPrefixes(target: Target, accountRef?: string): Promise<PrefixListing[]> {
  const account = accountRef ? await findAccount(target, accountRef) : undefined;
  return target.query<PrefixListing>(
    `SELECT a.id AS account_id, a.public_id, a.name, c.url, c.created_at
     FROM callback_prefixes c JOIN accounts a ON a.id = c.account_id
     ${account ? "WHERE a.id = ?" : ""} ORDER BY a.created_at, c.created_at, c.url`,
    account ? [account.id] : [],
  );
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const { flags, positionals } = parseArgs(rest);
  if (!command || command === "--help" || flags.has("help")) {
    console.log(HELP);
    return;
  }
  if (command !== "add" && command !== "list") fail(`unknown command ${command}\n\n${HELP}`);
  const account = flags.get("account");
  if (account === true) fail("--account takes an account id or public id (see npm run keys:list)");
  if (command === "add" && (!account || !positionals[0]))
    fail("usage: npm run callbacks -- add <url> --account <id>");
  const target = await openTarget({ remote: flags.has("remote") });
  try {
    if (command === "add") {
      const stored = await addPrefix(target, account!, positionals[0]!);
      console.log(`allowed ${stored}`);
    } else {
      const prefixes = await listPrefixes(target, account);
      if (prefixes.length === 0)
        console.log("no callback prefixes yet: npm run callbacks -- add <url> --account <id>");
      for (const p of prefixes) {
        console.log(
          `${p.account_id}\t${p.public_id}\t${p.name}\t${p.url}\t${new Date(p.created_at).toISOString()}`,
        );
      }
    }
  } finally {
    await target.close();
  }
}

main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
