import { fail, parseCommandLine, runCommand, usageError } from "./lib/cli";

// The issuer and scopes are worker/interuss/auth.ts's DEV_ISSUER and SCOPES, written out so --help
// needs no import; test/tools/cli.test.ts holds them together.
const HELP = `npm run interuss:token -- --scope <scope> [--scope <scope> …] [--audience <host>] [--subject <id>]

A bearer token for the InterUSS interfaces (/interuss/…) of the local development service, as the
InterUSS test authority would issue one: ES256, signed with the development key in .dev.vars
(JWT_PRIVATE_KEY, which the worker trusts for this only when ENVIRONMENT is development), iss
windsock-development-interuss, valid for one hour. Prints the claims, then the token alone on the
last line. Refused when ENVIRONMENT is production.

  --scope <scope>    a scope to grant; repeat for more. The interfaces' scopes:
                       interuss.geospatial_map.direct_automated_test
                       interuss.geospatial_map.query
                       interuss.flight_planning.direct_automated_test
                       interuss.flight_planning.plan
                       rid.display_provider
                       rid.service_provider
                       rid.inject_test_data
  --audience <host>  aud: the host name the service is reached at (default 127.0.0.1; no port)
  --subject <id>     sub: the client's id (default uss_qualifier)`;

const { values } = parseCommandLine({
  help: HELP,
  options: {
    scope: { type: "string", multiple: true },
    audience: { type: "string", default: "127.0.0.1" },
    subject: { type: "string", default: "uss_qualifier" },
  },
});
const scopes = values.scope ?? [];
if (scopes.length === 0) usageError("give at least one --scope");
const malformed = scopes.find((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s));
if (malformed !== undefined)
  usageError(`--scope "${malformed}" is not an RFC 6749 scope token (no spaces or quotes)`);
if (process.env.ENVIRONMENT === "production")
  fail("refused: ENVIRONMENT is production; tokens there come from the InterUSS test authority");

runCommand(async () => {
  const [{ DEV_ISSUER, MAX_LIFETIME_SECONDS }, { signingKey, signToken }, { ensureDevVars }] =
    await Promise.all([
      import("../worker/interuss/auth"),
      import("../worker/lib/jwt"),
      import("./lib/devVars"),
    ]);
  const vars = ensureDevVars();
  if (vars.ENVIRONMENT === "production") fail("refused: .dev.vars sets ENVIRONMENT to production");
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
  const token = await signToken(claims as Parameters<typeof signToken>[0], key);
  console.log(
    `aud ${claims.aud}, scope "${claims.scope}", expires ${new Date(claims.exp * 1000).toISOString()}`,
  );
  console.log(token);
});
