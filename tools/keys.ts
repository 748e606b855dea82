import { KEY_CACHE_MS } from "../worker/middleware/apiKey";
import { createKey, listKeys, revokeKey } from "./lib/accounts";
import { fail, parseArgs } from "./lib/config";
import { openTarget } from "./lib/target";

const HELP = `Manage API keys (stored only as hashes).

Usage:
  npm run keys:create -- --name <label> [--account <account id>] [--rate-limit <per minute>] [--remote]
      Mints a key for a new account called <label>, or for an existing account with --account.
      Prints the key alone on the last line of stdout: it is shown only this once.
  npm run keys:list -- [--remote]
      Lists keys: id, prefix, name, account, created, revoked.
  npm run keys:revoke -- <key id or prefix> [--remote]
      Revokes a key. Workers stop accepting it within ${KEY_CACHE_MS / 1000} seconds (their key cache);
      a key's holder can revoke it at once with POST /auth/v1/key/revoke.

Options:
  --remote   act on the deployed D1 database (wrangler must be logged in) instead of STATE_DIR
  --help     show this help`;

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const { flags, positionals } = parseArgs(rest);
  if (!command || flags.has("help") || command === "--help") {
    console.log(HELP);
    return;
  }
  const target = await openTarget({ remote: flags.has("remote") });
  try {
    if (command === "create") {
      const name = flags.get("name");
      if (typeof name !== "string" || name.trim() === "") fail("--name <label> is required (see --help)");
      const rateFlag = flags.get("rate-limit");
      const rate = typeof rateFlag === "string" ? Number(rateFlag) : undefined;
      if (rate !== undefined && !(Number.isInteger(rate) && rate > 0))
        fail("--rate-limit takes a whole number > 0");
      const account = flags.get("account");
      const created = await createKey(target, {
        name: name.trim(),
        accountId: typeof account === "string" ? account : undefined,
        rateLimitPerMinute: rate,
      });
      console.error(`account ${created.accountId} (public id ${created.publicId}), key ${created.keyId}`);
      console.log(created.apiKey);
    } else if (command === "list") {
      const keys = await listKeys(target);
      if (keys.length === 0) console.log("no keys yet: npm run keys:create -- --name <label>");
      for (const k of keys) {
        const revoked = k.revoked_at ? `revoked ${new Date(k.revoked_at).toISOString()}` : "active";
        console.log(
          `${k.key_id}\t${k.prefix}…\t${k.name}\t${k.account_id} (${k.account_name})\t${new Date(k.created_at).toISOString()}\t${revoked}`,
        );
      }
    } else if (command === "revoke") {
      const which = positionals[0];
      if (!which) fail("name the key to revoke by id or prefix (see keys:list)");
      const count = await revokeKey(target, which);
      if (count === 0) fail(`no active key matches ${which}`);
      console.log(`revoked ${which}; workers refuse it within ${KEY_CACHE_MS / 1000} s`);
    } else {
      fail(`unknown command ${command}\n\n${HELP}`);
    }
  } finally {
    await target.close();
  }
}

main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
