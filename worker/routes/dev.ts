import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { createRouter } from "../app";
import { readOutbox } from "../delivery/outbox";
import { success } from "../lib/jsend";
import { responses, security } from "../lib/openapi";

const ping = createRoute({
  method: "get",
  path: "/dev/v1/db-ping",
  tags: ["Development"],
  summary: "One trivial D1 query: the floor of any request that touches D1 (benchmarks)",
  security,
  responses: responses(z.object({ one: z.number() }), "The query's answer"),
});

const outbox = createRoute({
  method: "get",
  path: "/dev/v1/outbox",
  tags: ["Development"],
  summary: "Verification codes the development outbox delivered to a pilot of this account, newest first",
  security,
  request: { query: z.object({ pilot_id: z.string().min(1).max(64) }) },
  responses: responses(
    z.array(
      z.object({
        pilot_id: z.string(),
        channel: z.enum(["phone", "email"]),
        to: z.string(),
        token: z.string(),
        created_at: z.string(),
      }),
    ),
    "Delivered messages",
  ),
});

/** Routes that exist only when ENVIRONMENT=development (mounted by index.ts). */
export const devRoutes = createRouter()
  .openapi(ping, async (c) => {
    const row = await c.var.db.get<{ one: number }>(sql`SELECT 1 AS one`);
    return success(c, { one: row.one });
  })
  .openapi(outbox, async (c) =>
    success(c, await readOutbox(c.var.db, c.var.account.id, c.req.valid("query").pilot_id)),
  );
