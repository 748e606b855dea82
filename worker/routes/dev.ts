import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { createRouter } from "../app";
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

/** Routes that exist only when ENVIRONMENT=development (mounted by index.ts). */
export const devRoutes = createRouter().openapi(ping, async (c) => {
  const row = await c.var.db.get<{ one: number }>(sql`SELECT 1 AS one`);
  return success(c, { one: row.one });
});
