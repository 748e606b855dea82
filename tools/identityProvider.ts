import { parseCommandLine, runCommand, usageError } from "./lib/cli";
import type { ToolDb } from "./lib/db";

const HELP = `Connect an application's own OpenID Connect provider, so that its pilots sign in there: the
provider's tokens are then pilot tokens of that application (a stable pilot per issuer and user),
and the SDK login routes (/oauth/ro, /delegation, /realms/{realm}/protocol/openid-connect/token)
pass password and refresh grants to its token endpoint.

Usage:
  npm run pilots:provider -- set --account <id> --issuer <url> --audience <aud> [options]
      Sets (or replaces) the application's provider. With --discovery-url the JWKS, token and
      authorization endpoints are read from the provider's discovery document now; without it,
      give --jwks-url (and --token-endpoint for the SDK login routes).
  npm run pilots:provider -- show [--account <id>]
      Shows the providers set (the client secret only as set/unset).
  npm run pilots:provider -- remove --account <id>
      Removes it: the provider's tokens are refused again.

Options:
  --account <id>              the application (account id or public id; see npm run keys:list)
  --issuer <url>              the provider's issuer, exactly as its tokens' \`iss\`
  --discovery-url <url>       its /.well-known/openid-configuration (fills the endpoints below)
  --jwks-url <url>            its JSON Web Key Set (keys that sign its tokens)
  --token-endpoint <url>      where password and refresh grants go (the SDK login routes)
  --authorization-endpoint <url>  where the deep-link page sends pilots to sign in
  --audience <aud>            the \`aud\` its pilot tokens carry (usually the client id)
  --user-claim <name>         the claim naming the user (default sub)
  --client-id <id>            this service's client at the provider (default: the audience)
  --client-secret <secret>    for a confidential client (kept in D1, sent only to the token endpoint)
  --allow-loopback            development only: the provider may live on 127.0.0.1 (npm start's)
  --remote                    act on the deployed D1 database instead of STATE_DIR
  --help                      show this help
Provider URLs must be public https addresses. Running workers apply a change within 10 s.`;

const [command, ...args] = process.argv.slice(2);
const OPTIONS = {
  account: { type: "string" },
  issuer: { type: "string" },
  "discovery-url": { type: "string" },
  "jwks-url": { type: "string" },
  "token-endpoint": { type: "string" },
  "authorization-endpoint": { type: "string" },
  audience: { type: "string" },
  "user-claim": { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
  "allow-loopback": { type: "boolean" },
  remote: { type: "boolean" },
} as const;
const COMMANDS = ["set", "show", "remove"];

type Values = ReturnType<typeof parseCommandLine<typeof OPTIONS>>["values"];

async function findAccount(db: ToolDb, idOrPublicId: string) {
  const { findAccount } = await import("../worker/store/accounts");
  const found = await findAccount(db, idOrPublicId);
  if (!found) throw new Error(`no account ${idOrPublicId}; see npm run keys:list`);
  return found;
}

/** The endpoints the provider announces, read from its discovery document. */
async function discover(url: string) {
  const response = await fetch(url, { headers: { accept: "application/json" }, redirect: "error" }).catch(
    (err: unknown) => {
      throw new Error(`cannot read the discovery document at ${url}: ${String(err)}`);
    },
  );
  if (!response.ok) throw new Error(`the discovery document at ${url} answered ${response.status}`);
  const doc = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  const text = (key: string) => (typeof doc?.[key] === "string" ? (doc[key] as string) : undefined);
  if (!text("issuer") || !text("jwks_uri"))
    throw new Error(`${url} is no OpenID Connect discovery document (it lacks issuer or jwks_uri)`);
  return {
    issuer: text("issuer")!,
    jwksUrl: text("jwks_uri")!,
    tokenEndpoint: text("token_endpoint"),
    authorizationEndpoint: text("authorization_endpoint"),
  };
}

/** The provider to store: flags over discovered values, every URL checked as the worker checks it. */
async function providerFrom(values: Values, accountId: string) {
  const { providerUrlProblem } = await import("../worker/domain/identityProvider");
  const allowLoopback = values["allow-loopback"] ?? false;
  const discoveryUrl = values["discovery-url"];
  const check = (name: string, url: string | undefined) => {
    if (url === undefined) return undefined;
    const problem = providerUrlProblem(url, { allowLoopback });
    if (problem) usageError(`--${name} ${problem}`);
    return url;
  };
  check("discovery-url", discoveryUrl);
  const found = discoveryUrl ? await discover(discoveryUrl) : undefined;
  const issuer = values.issuer ?? found?.issuer;
  if (!issuer) usageError("--issuer is required (or --discovery-url, which names it)");
  if (found && found.issuer !== issuer)
    throw new Error(`the discovery document names the issuer ${found.issuer}, not ${issuer}`);
  const jwksUrl = check("jwks-url", values["jwks-url"] ?? found?.jwksUrl);
  if (!jwksUrl) usageError("--jwks-url or --discovery-url is required");
  if (!values.audience) usageError("--audience is required: the aud the provider's pilot tokens carry");
  const userClaim = values["user-claim"] ?? "sub";
  if (!/^[\w:.-]{1,64}$/.test(userClaim)) usageError(`--user-claim "${userClaim}" is no claim name`);
  return {
    accountId,
    issuer: check("issuer", issuer)!,
    discoveryUrl: discoveryUrl ?? null,
    jwksUrl,
    tokenEndpoint: check("token-endpoint", values["token-endpoint"] ?? found?.tokenEndpoint) ?? null,
    authorizationEndpoint:
      check("authorization-endpoint", values["authorization-endpoint"] ?? found?.authorizationEndpoint) ??
      null,
    audience: values.audience,
    userClaim,
    clientId: values["client-id"] ?? values.audience,
    clientSecret: values["client-secret"] ?? null,
    allowLoopback,
  };
}

async function main() {
  if (command === undefined || command === "--help" || command === "-h") return console.log(HELP);
  if (!COMMANDS.includes(command)) usageError(`unknown command "${command}": use ${COMMANDS.join(", ")}`);
  const { values } = parseCommandLine({ help: HELP, args, options: OPTIONS });
  if (command !== "show" && !values.account)
    usageError(`usage: npm run pilots:provider -- ${command} --account <id> …`);
  const { withToolDb } = await import("./lib/db");
  const store = await import("../worker/store/identityProviders");
  await withToolDb(values.remote, async (db) => {
    if (command === "set") {
      const account = await findAccount(db, values.account!);
      const provider = await providerFrom(values, account.id);
      await store.saveIdentityProvider(db, provider, Date.now());
      console.log(`${account.publicId} (${account.name}) trusts ${provider.issuer} for its pilots`);
      console.log(`  keys            ${provider.jwksUrl}`);
      console.log(`  token endpoint  ${provider.tokenEndpoint ?? "(none: the SDK login routes answer 400)"}`);
      console.log(
        `  sign-in page    ${provider.authorizationEndpoint ?? "(none: the deep-link page needs grants)"}`,
      );
      console.log(
        `  audience ${provider.audience}, user claim ${provider.userClaim}, client ${provider.clientId}`,
      );
      return;
    }
    if (command === "remove") {
      const account = await findAccount(db, values.account!);
      const removed = await store.removeIdentityProvider(db, account.id);
      console.log(
        removed
          ? `${account.publicId} no longer trusts an identity provider`
          : `${account.publicId} had no identity provider`,
      );
      return;
    }
    const only = values.account ? await findAccount(db, values.account) : undefined;
    const rows = (await store.listIdentityProviders(db)).filter((p) => !only || p.accountId === only.id);
    if (rows.length === 0) console.log("no application has an identity provider");
    for (const p of rows)
      console.log(
        [
          p.accountId,
          p.issuer,
          `jwks=${p.jwksUrl}`,
          `token=${p.tokenEndpoint ?? "-"}`,
          `authorize=${p.authorizationEndpoint ?? "-"}`,
          `aud=${p.audience}`,
          `claim=${p.userClaim}`,
          `client=${p.clientId ?? "-"}`,
          `secret=${p.clientSecret ? "set" : "unset"}`,
          p.allowLoopback ? "loopback" : "",
        ]
          .filter(Boolean)
          .join("\t"),
      );
  });
}

runCommand(main);
