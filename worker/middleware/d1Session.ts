import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { badRequest } from "../lib/errors";
import { dbForSession } from "../store/db";

/**
 * Every request talks to D1 through one session (D1 read replication, the Sessions API): a read
 * goes to the nearest replica, a write to the primary. The answer's `x-d1-bookmark` names the
 * database state the request saw or made; a client that sends it back on its next request reads
 * at least that state, so a pilot's own writes are visible to their next read wherever it lands.
 */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/** D1 bookmarks are short hexadecimal-and-dash strings; anything else is refused before D1 sees it. */
const BOOKMARK = /^[0-9a-zA-Z-]{1,200}$/;

/**
 * Routes that only read although they are POSTs (an area in the body): their first query may go to
 * a replica too. Every other POST, PATCH or DELETE starts at the primary ("first-primary"), so
 * that a client without bookmarks still finds what it has just written.
 */
const READING_POSTS = [
  /^\/rules\/v1\/?$/,
  /^\/rules\/v1\/evaluation\/?$/,
  /^\/advisory\/v2\/airspace\/?$/,
  /^\/status\/v2\/(polygon|path)\/?$/,
  /^\/airspace\/v2\/search\/?$/,
  /^\/elevation\/v1\/ele(\/carpet|\/path)?\/?$/,
];

const onlyReads = (method: string, path: string) =>
  method === "GET" || method === "HEAD" || (method === "POST" && READING_POSTS.some((p) => p.test(path)));

export const d1Session = createMiddleware<AppEnv>(async (c, next) => {
  const bookmark = c.req.header(BOOKMARK_HEADER)?.trim() || undefined;
  if (bookmark !== undefined && !BOOKMARK.test(bookmark))
    throw badRequest(BOOKMARK_HEADER, "must be a bookmark this service returned in x-d1-bookmark");
  const session = c.env.DB.withSession(
    bookmark ?? (onlyReads(c.req.method, c.req.path) ? "first-unconstrained" : "first-primary"),
  );
  c.set("db", dbForSession(c.env.DB, session));
  await next();
  const reached = session.getBookmark();
  if (reached) c.header(BOOKMARK_HEADER, reached);
});
