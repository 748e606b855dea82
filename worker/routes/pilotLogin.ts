import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../app";
import {
  type GrantParse,
  type ProviderAnswer,
  passwordGrant,
  refreshGrant,
  tokenEndpointGrant,
} from "../domain/identityProvider";
import type { AppEnv } from "../env";
import { security } from "../lib/openapi";
import { loginBody, oauthError, requireLoginApplication } from "../middleware/loginApplication";
import { clientAddress } from "../middleware/publicRateLimit";
import { providerDiscovery, signIn, signOut } from "../services/providerLogin";

/**
 * The SDKs' sign-in routes (issue #25), served by the account's own OpenID Connect provider: the
 * grant is passed to its token endpoint and the answer comes back in the shapes the SDKs decode
 * (C++ codec/json/token.cpp): the tokens at the top level as OAuth clients read them, and again
 * in JSend `data`, which the C++ SDK unwraps. Errors carry the provider's `error` and the
 * `error_description` the C++ client shows. No API key is needed: the C++ SDK sends none here
 * (middleware/loginApplication.ts finds the application from `client_id` or the realm).
 */

const Tokens = z
  .object({
    id_token: z.string().openapi({ description: "The pilot token: send it as `Authorization: Bearer`" }),
    access_token: z.string(),
    refresh_token: z.string().optional(),
    token_type: z
      .string()
      .openapi({ description: "`bearer` (`Bearer` from /delegation, as the SDK reads it)" }),
    expires_in: z.number().int(),
  })
  .openapi("PilotTokens");

const Answer = Tokens.extend({ status: z.literal("success"), data: Tokens });
const OAuthError = z
  .object({
    error: z.string().openapi({ example: "invalid_grant" }),
    error_description: z.string(),
    status: z.literal("fail"),
    data: z.object({
      code: z.number().int(),
      message: z.string(),
      errors: z.array(z.object({ name: z.string(), message: z.string() })),
    }),
  })
  .openapi("OAuthError");

const Body = z.record(z.string(), z.unknown());
const errorContent = { content: { "application/json": { schema: OAuthError } } };
const answers = {
  200: { content: { "application/json": { schema: Answer } }, description: "The provider's tokens" },
  400: {
    ...errorContent,
    description: "Bad grant or credentials (the provider's error), or no provider configured",
  },
  401: {
    ...errorContent,
    description:
      "The provider refused the client, or no application is named (client_id, realm or X-API-Key)",
  },
  429: {
    ...errorContent,
    description: "Too many failed sign-ins for the user name or from the address: wait Retry-After seconds",
  },
  502: { ...errorContent, description: "The provider could not be reached or answered badly" },
};

/** The SDKs post a form or JSON, whichever their HTTP stack builds. */
const LoginForm = {
  content: {
    "application/x-www-form-urlencoded": { schema: Body },
    "application/json": { schema: Body },
  },
  required: true,
};
/** The SDKs' issuer path `/realms/{realm}/…`: an application's public id, or any name (airmap). */
const RealmParams = z.object({
  realm: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "realm", in: "path" }, example: "airmap" }),
});

/** The API key is optional here: without one, the body's `client_id` (or the realm) names the application. */
const optionalKey = [{}, ...security];

const oauthRo = createRoute({
  method: "post",
  path: "/oauth/ro",
  tags: ["Auth"],
  summary: "Sign a pilot in with username and password (the original platform's resource-owner route)",
  description:
    "JSON as the C++ SDK sends it: `username`, `password`, `client_id`, `device`, `grant_type` password, `scope`, `connection`. Passed as a password grant to the application's identity provider.",
  security: optionalKey,
  middleware: [requireLoginApplication] as const,
  request: { body: { content: { "application/json": { schema: Body } }, required: true } },
  responses: answers,
});

const delegation = createRoute({
  method: "post",
  path: "/delegation",
  tags: ["Auth"],
  summary: "Renew a pilot's tokens with a refresh token",
  description:
    "JSON (`refresh_token`, `client_id`, `grant_type` urn:ietf:params:oauth:grant-type:jwt-bearer, `scope`) or a form (`grant_type` refresh_token). Passed as a refresh_token grant to the application's identity provider.",
  security: optionalKey,
  middleware: [requireLoginApplication] as const,
  request: { body: LoginForm },
  responses: answers,
});

const realmToken = createRoute({
  method: "post",
  path: "/realms/{realm}/protocol/openid-connect/token",
  tags: ["Auth"],
  summary: "OpenID Connect token endpoint for the SDKs: password and refresh_token grants",
  description:
    "A form as the C++ SDK's OpenID Connect authenticator sends it (`grant_type`, `username`, `password`, `client_id`, `device_id`, `scopes=openid`). The application is the API key's, else the realm when it is an application's public id, else the one whose client `client_id` names.",
  security: optionalKey,
  middleware: [requireLoginApplication] as const,
  request: {
    params: RealmParams,
    body: LoginForm,
  },
  responses: answers,
});

const realmDiscovery = createRoute({
  method: "get",
  path: "/realms/{realm}/.well-known/openid-configuration",
  tags: ["Auth"],
  summary: "The application's identity provider's OpenID discovery document, where the SDKs look for it",
  description:
    "The Swift SDK's issuer is `https://auth.<domain>/realms/airmap/` and AppAuth asks for its discovery without an API key. The application is the realm's when it is an application's public id, else SDK_LOGIN_APPLICATION (or the API key's, when one is sent). The document is the provider's own: the SDK then signs in at the provider.",
  security: optionalKey,
  middleware: [requireLoginApplication] as const,
  request: {
    params: RealmParams,
  },
  responses: {
    200: {
      content: {
        "application/json": {
          schema: z
            .object({ issuer: z.string(), jwks_uri: z.string() })
            .catchall(z.unknown())
            .openapi("OpenIdConfiguration"),
        },
      },
      description:
        "The provider's discovery document (OpenID Connect Discovery 1.0), as the provider serves it",
    },
    400: { ...errorContent, description: "The application has no identity provider" },
    401: answers[401],
    429: answers[429],
    502: answers[502],
  },
});

const realmLogout = createRoute({
  method: "post",
  path: "/realms/{realm}/protocol/openid-connect/logout",
  tags: ["Auth"],
  summary: "Sign a pilot out: the refresh token is revoked at the application's identity provider",
  description:
    "A form as the Swift SDK's `AirMap.logout` sends it (`OpenIdClient.swift` 32–42: `refresh_token`, `client_id`, with its bearer and API key). The refresh token is revoked at the provider's revocation endpoint (RFC 7009); a provider without one lets it lapse at its expiry. 204 either way; the SDK then forgets its tokens.",
  security: optionalKey,
  middleware: [requireLoginApplication] as const,
  request: {
    params: RealmParams,
    body: LoginForm,
  },
  responses: {
    204: { description: "Signed out (`X-Refresh-Token-Revoked` says whether the provider revoked it)" },
    400: { ...errorContent, description: "No refresh_token, or the application has no identity provider" },
    401: answers[401],
    429: answers[429],
    502: answers[502],
  },
});

export const pilotLoginRoutes = createRouter()
  .openapi(oauthRo, async (c) => answer(c, passwordGrant(await loginBody(c)), "bearer"))
  .openapi(delegation, async (c) => answer(c, refreshGrant(await loginBody(c)), "Bearer"))
  .openapi(realmToken, async (c) => answer(c, tokenEndpointGrant(await loginBody(c)), "bearer"))
  .openapi(realmLogout, async (c) => {
    const refreshToken = (await loginBody(c)).refresh_token;
    if (typeof refreshToken !== "string" || refreshToken.trim() === "")
      return oauthError(c, 400, "invalid_request", "Send the refresh_token to revoke (a form field)");
    const result = await signOut(c.env, c.var.db, c.var.account.id, refreshToken.trim());
    if (!result.ok) return oauthError(c, result.status, result.error, result.description);
    c.header("Cache-Control", "no-store");
    c.header("X-Refresh-Token-Revoked", String(result.revoked));
    return c.body(null, 204);
  })
  .openapi(realmDiscovery, async (c) => {
    const found = await providerDiscovery(c.env, c.var.db, c.var.account.id);
    if (!found.ok) {
      const error = found.status === 400 ? "unauthorized_client" : "temporarily_unavailable";
      return oauthError(c, found.status, error, found.description);
    }
    c.header("Cache-Control", "public, max-age=60");
    return c.json(found.document as { issuer: string; jwks_uri: string }, 200);
  });

async function answer(c: Context<AppEnv>, parsed: GrantParse, tokenType: "bearer" | "Bearer") {
  const address = clientAddress(c.req.header("cf-connecting-ip"));
  const result: ProviderAnswer = parsed.ok
    ? await signIn(c.env, c.var.db, c.var.account.id, parsed.grant, tokenType, address)
    : { ok: false, status: 400, error: parsed.error, description: parsed.description };
  c.header("Cache-Control", "no-store");
  if (result.ok) return c.json({ ...result.tokens, status: "success" as const, data: result.tokens }, 200);
  return oauthError(c, result.status, result.error, result.description, result.retryAfterSeconds);
}
