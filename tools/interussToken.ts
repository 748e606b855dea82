import { parseArgs } from "node:util";
import { DEV_ISSUER, MAX_LIFETIME_SECONDS, SCOPES } from "../worker/interuss/auth";
import { signingKey, signToken, type TokenClaims } from "../worker/lib/jwt";
import { ensureDevVars } from "./lib/devVars";

const HELP = `npm run interuss:token -- --scope <scope> [--scope <scope> …] [--audience <host>] [--subject <id>]

A bearer token for the InterUSS interfaces (/interuss/…) of the local development service, as the
InterUSS test authority would issue one: ES256, signed with the development key in .dev.vars
(JWT_PRIVATE_KEY, which the worker trusts for this only when ENVIRONMENT is development), iss
${DEV_ISSUER}, valid for one hour. Prints the claims, then the token alone on the last line.
Refused when ENVIRONMENT is production.

  --scope <scope>    a scope to grant; repeat for more. The interfaces' scopes:
                       ${Object.values(SCOPES).join("\n                       ")}
  --audience <host>  aud: the host name the service is reached at (default 127.0.0.1; no port)
  --subject <id>     sub: the client's id (default uss_qualifier)`;

function options() {
  try {
    return parseArgs({
      options: {
        scope: { type: "string", multiple: true },
        audience: { type: "string", default: "127.0.0.1" },
        subject: { type: "string", default: "uss_qualifier" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
}

const values = options();
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
if (process.env.ENVIRONMENT === "production") {
  console.error("Refused: ENVIRONMENT is production; tokens there come from the InterUSS test authority.");
  process.exit(1);
}
const scopes = values.scope ?? [];
if (scopes.length === 0 || scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
  console.error(`Give at least one --scope (RFC 6749 scope tokens, no spaces).\n\n${HELP}`);
  process.exit(2);
}
const vars = ensureDevVars();
if (vars.ENVIRONMENT === "production") {
  console.error("Refused: .dev.vars sets ENVIRONMENT to production.");
  process.exit(1);
}
const key = await signingKey(vars.JWT_PRIVATE_KEY!);
const iat = Math.floor(Date.now() / 1000);
const claims = {
  iss: DEV_ISSUER,
  sub: values.subject,
  aud: values.audience,
  iat,
  exp: iat + MAX_LIFETIME_SECONDS,
  scope: scopes.join(" "),
};
const token = await signToken(claims as TokenClaims, key);
console.log(
  `aud ${claims.aud}, scope "${claims.scope}", expires ${new Date(claims.exp * 1000).toISOString()}`,
);
console.log(token);
