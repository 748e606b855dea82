import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { notFound } from "../lib/errors";
import { success } from "../lib/jsend";
import { responses, security } from "../lib/openapi";
import { isoTime } from "../lib/time";
import { registerWebhook } from "../services/webhooks";
import { deleteWebhook, findWebhook, type Webhook } from "../store/webhooks";

/**
 * The account's conformance webhook: every conformance event of the account's flights is POSTed to
 * it, signed with its secret (worker/domain/webhooks.ts), from the flight's Durable Object.
 */

const PATH = "/webhooks/v1/conformance";

const WebhookView = z
  .object({ url: z.string(), created_at: z.string(), updated_at: z.string() })
  .openapi("ConformanceWebhook");

const WebhookRegistered = WebhookView.extend({
  secret: z.string().openapi({
    description: "The signing secret; shown only in this answer, keep it to verify `Windsock-Signature`",
  }),
}).openapi("ConformanceWebhookRegistered");

const putRoute = createRoute({
  method: "put",
  path: PATH,
  tags: ["Live"],
  summary: "Register (or replace) the account's conformance webhook; https to a public host only",
  description:
    "Conformance events of the account's flights are POSTed as `{flight_id, events}` (a flight's events of 5 s coalesced, at most 50 a POST and 10 POSTs waiting per flight) with `Windsock-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">` and `Windsock-Event-Id`; non-2xx answers (redirects included: they are not followed) are retried 8 times over about an hour, and a failing receiver is paused for all the account's flights (30 s doubling to 32 min). The URL must name a public host: loopback, private, link-local, CGNAT, multicast and reserved addresses, and single-label, `localhost`, `.local` and `.internal` names are refused (400), here and again at each delivery. Without `secret`, one is generated; either way it is returned only here.",
  security,
  request: {
    body: {
      content: {
        "application/json": {
          schema: z
            .object({
              url: z.string().max(2048),
              secret: z
                .string()
                .optional()
                .openapi({ description: "16–256 printable characters; generated when absent" }),
            })
            .openapi("ConformanceWebhookPut"),
        },
      },
      required: true,
    },
  },
  responses: responses(WebhookRegistered, "The webhook, with its signing secret (shown only now)"),
});

const getRoute = createRoute({
  method: "get",
  path: PATH,
  tags: ["Live"],
  summary: "The account's conformance webhook (without its secret)",
  security,
  responses: responses(WebhookView, "The registered webhook; 404 when none is"),
});

const deleteRoute = createRoute({
  method: "delete",
  path: PATH,
  tags: ["Live"],
  summary: "Stop delivering conformance events; deliveries still queued are dropped",
  security,
  responses: responses(z.null(), "Removed; 404 when none was registered"),
});

const view = (w: Webhook) => ({
  url: w.url,
  created_at: isoTime(w.createdAt),
  updated_at: isoTime(w.updatedAt),
});

export const webhookRoutes = createRouter()
  .openapi(putRoute, async (c) => {
    const { url, secret } = c.req.valid("json");
    const stored = await registerWebhook(c.env, c.var.db, c.var.account.id, url, secret, Date.now());
    return success(c, { ...view(stored), secret: stored.secret });
  })
  .openapi(getRoute, async (c) => {
    const webhook = await findWebhook(c.var.db, c.var.account.id);
    if (!webhook) throw notFound("Conformance webhook");
    return success(c, view(webhook));
  })
  .openapi(deleteRoute, async (c) => {
    if (!(await deleteWebhook(c.var.db, c.var.account.id))) throw notFound("Conformance webhook");
    return success(c, null);
  });
