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
import { exchangeGrant } from "../services/providerLogin";

/**
 * The SDKs' sign-in routes (issue #25), served by the account's own OpenID Connect provider: the
 * grant is passed to its token endpoint and the answer comes back in the shapes the SDKs decode
 * (C++ codec/json/token.cpp): the tokens at the top level as OAuth clients read them, and again
 * in JSend `data`, which the C++ SDK unwraps. Errors carry the provider's `error` and the
 * `error_description` the C++ client shows.
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
  401: { ...errorContent, description: "The provider refused the client, or a missing API key" },
  502: { ...errorContent, description: "The provider could not be reached or answered badly" },
};

const oauthRo = createRoute({
  method: "post",
  path: "/oauth/ro",
  tags: ["Auth"],
  summary: "Sign a pilot in with username and password (the original platform's resource-owner route)",
  description:
    "JSON as the C++ SDK sends it: `username`, `password`, `client_id`, `device`, `grant_type` password, `scope`, `connection`. Passed as a password grant to the application's identity provider.",
  security,
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
  security,
  request: {
    body: {
      content: {
        "application/json": { schema: Body },
        "application/x-www-form-urlencoded": { schema: Body },
      },
      required: true,
    },
  },
  responses: answers,
});

const realmToken = createRoute({
  method: "post",
  path: "/realms/{realm}/protocol/openid-connect/token",
  tags: ["Auth"],
  summary: "OpenID Connect token endpoint for the SDKs: password and refresh_token grants",
  description:
    "A form as the C++ SDK's OpenID Connect authenticator sends it (`grant_type`, `username`, `password`, `client_id`, `device_id`, `scopes=openid`). The realm names nothing here: the API key picks the application.",
  security,
  request: {
    params: z.object({
      realm: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "realm", in: "path" }, example: "airmap" }),
    }),
    body: {
      content: {
        "application/x-www-form-urlencoded": { schema: Body },
        "application/json": { schema: Body },
      },
      required: true,
    },
  },
  responses: answers,
});

export const pilotLoginRoutes = createRouter()
  .openapi(oauthRo, async (c) => answer(c, passwordGrant(await bodyOf(c)), "bearer"))
  .openapi(delegation, async (c) => answer(c, refreshGrant(await bodyOf(c)), "Bearer"))
  .openapi(realmToken, async (c) => answer(c, tokenEndpointGrant(await bodyOf(c)), "bearer"));

/** The body as fields, JSON or form; anything unreadable is an empty body (the grant names what is missing). */
async function bodyOf(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (type.includes("json")) {
    const json = await c.req.json().catch(() => null);
    return typeof json === "object" && json !== null && !Array.isArray(json) ? json : {};
  }
  const form = await c.req.parseBody().catch(() => ({}));
  return form as Record<string, unknown>;
}

async function answer(c: Context<AppEnv>, parsed: GrantParse, tokenType: "bearer" | "Bearer") {
  const result: ProviderAnswer = parsed.ok
    ? await exchangeGrant(c.env, c.var.db, c.var.account.id, parsed.grant, tokenType)
    : { ok: false, status: 400, error: parsed.error, description: parsed.description };
  c.header("Cache-Control", "no-store");
  if (result.ok) return c.json({ ...result.tokens, status: "success" as const, data: result.tokens }, 200);
  const { status, error, description } = result;
  return c.json(
    {
      error,
      error_description: description,
      status: "fail" as const,
      data: { code: status, message: description, errors: [] },
    },
    status,
  );
}
