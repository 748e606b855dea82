import { fail, parseCommandLine, runCommand, usageError, wholeNumber } from "./lib/cli";

// "10 seconds" is the worker's KEY_CACHE_MS; test/tools/keys.test.ts holds the two together.
const HELP = `Manage API keys (stored only as hashes).

Usage:
  npm run keys:create -- --name <label> [--account <account id>] [--rate-limit <per minute>] [--remote]
      Mints a key for a new account called <label>, or for an existing account with --account.
      Prints the key alone on the last line of stdout: it is shown only this once.
  npm run keys:list -- [--remote]
      Lists keys: id, prefix, name, account, created, revoked.
  npm run keys:revoke -- <key id or prefix> [--remote]
      Revokes a key. Workers stop accepting it within 10 seconds (their key cache);
      a key's holder can revoke it at once with POST /auth/v1/key/revoke.

Options:
  --remote   act on the deployed D1 database (wrangler must be logged in) instead of STATE_DIR
  --help     show this help`;

const remote = { type: "boolean" } as const;
const [command, ...args] = process.argv.slice(2);

async function main() {
  if (command === "create") {
    const { values } = parseCommandLine({
      help: HELP,
      args,
      options: {
        name: { type: "string" },
        account: { type: "string" },
        "rate-limit": { type: "string" },
        remote,
      },
    });
    const name = values.name?.trim();
    if (!name) usageError("--name <label> is required");
    const rate = wholeNumber("rate-limit", values["rate-limit"], 1, 1e9);
    const { createApiKey } = await import("../worker/services/apiKeys");
    const created = await withDb(values.remote, (db) =>
      createApiKey(db, { name, accountId: values.account, rateLimitPerMinute: rate }),
    );
    if (!created) fail(`no account ${values.account}; list accounts with keys:list`);
    console.error(`account ${created.accountId} (public id ${created.publicId}), key ${created.keyId}`);
    console.log(created.apiKey);
  } else if (command === "list") {
    const { values } = parseCommandLine({ help: HELP, args, options: { remote } });
    const { listApiKeys } = await import("../worker/store/accounts");
    const keys = await withDb(values.remote, listApiKeys);
    if (keys.length === 0) console.log("no keys yet: npm run keys:create -- --name <label>");
    for (const k of keys) {
      const revoked = k.revokedAt ? `revoked ${new Date(k.revokedAt).toISOString()}` : "active";
      const created = new Date(k.createdAt).toISOString();
      console.log(
        `${k.keyId}\t${k.prefix}…\t${k.name}\t${k.accountId} (${k.accountName})\t${created}\t${revoked}`,
      );
    }
  } else if (command === "revoke") {
    const { values, positionals } = parseCommandLine({
      help: HELP,
      args,
      options: { remote },
      positionals: true,
    });
    const [which, extra] = positionals;
    if (!which) usageError("name the key to revoke by id or prefix (see keys:list)");
    if (extra) usageError(`revoke takes one key, not also "${extra}"`);
    const [{ revokeApiKeyByRef }, { KEY_CACHE_MS }] = await Promise.all([
      import("../worker/services/apiKeys"),
      import("../worker/middleware/apiKey"),
    ]);
    const outcome = await withDb(values.remote, (db) => revokeApiKeyByRef(db, which));
    if ("ambiguous" in outcome) fail(`${which} matches ${outcome.ambiguous} keys; pass the key id`);
    if ("none" in outcome) fail(`no active key matches ${which}`);
    console.log(`revoked ${which}; workers refuse it within ${KEY_CACHE_MS / 1000} s`);
  } else if (command === undefined || command === "--help" || command === "-h") {
    console.log(HELP);
  } else {
    usageError(`unknown command "${command}": use create, list or revoke`);
  }
}

/** The database is opened only once the arguments are known to be good (wrangler loads slowly). */
async function withDb<T>(remote: boolean | undefined, use: (db: import("./lib/db").ToolDb) => Promise<T>) {
  return (await import("./lib/db")).withToolDb(remote, use);
}

runCommand(main);
