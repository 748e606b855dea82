import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { notFound } from "../lib/errors";
import { success } from "../lib/jsend";
import { responses, security } from "../lib/openapi";
import { KEY_CACHE_MS, revokeKey } from "../middleware/apiKey";

const Revoked = z
  .object({
    key_id: z.string(),
    revoked_at: z.string().openapi({ example: "2026-11-24T03:00:00.000Z" }),
    elsewhere_within_seconds: z
      .number()
      .int()
      .openapi({ description: "other worker isolates refuse the key within this many seconds" }),
  })
  .openapi("RevokedKey");

const revoke = createRoute({
  method: "post",
  path: "/auth/v1/key/revoke",
  tags: ["Auth"],
  summary: "Revoke the API key of this request: refused at once here, everywhere within 10 s",
  security,
  responses: responses(Revoked, "The key is revoked"),
});

export const keyRoutes = createRouter().openapi(revoke, async (c) => {
  const account = c.var.account;
  const revoked = await revokeKey(c.var.db, account);
  if (!revoked) throw notFound("Live API key");
  return success(c, {
    key_id: account.keyId,
    revoked_at: new Date(revoked.revokedAt).toISOString(),
    elsewhere_within_seconds: KEY_CACHE_MS / 1000,
  });
});
