import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { renderProblemPage } from "../pages/problemPage";

/**
 * A flight's pages opened in a browser (it asks for text/html) get their refusals as a page in
 * words, not JSend; API clients still get JSend with the same status.
 */
export const pageProblems = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status < 400 || !(c.req.header("accept") ?? "").includes("text/html")) return;
  if (!(c.res.headers.get("content-type") ?? "").includes("application/json")) return;
  const body = (await c.res
    .clone()
    .json()
    .catch(() => null)) as { message?: unknown; data?: { message?: unknown } } | null;
  const said = body?.data?.message ?? body?.message;
  const message = typeof said === "string" ? said : "the request was refused";
  const flightId = /^\/flight\/v2\/([^/]+)\//.exec(c.req.path)?.[1];
  const html = renderProblemPage({
    status: c.res.status,
    message,
    flightId: flightId ? decodeURIComponent(flightId) : null,
  });
  const status = c.res.status;
  // Unset first: Hono would carry the refusal's headers over to the page.
  c.res = undefined;
  c.res = new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      "Cache-Control": "no-store",
    },
  });
});
