import { describe, expect, it } from "vitest";
import app from "../../../worker/index";
import { call, createAccount } from "../helpers";
import { BEARER_ROUTES, PROTECTED_ROUTES, type ProtectedRoute, PUBLIC_ROUTES } from "./routes";

/** `METHOD /hono/path` of every route the app serves (middleware, registered for ALL, left out). */
function appRoutes(): string[] {
  return [...new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`))];
}

const trimSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);

/** A Hono route path (`:id`, `:id{.+}`, `*`) as a regex over request paths. */
function pathRegex(pattern: string): RegExp {
  const source = trimSlash(pattern)
    .split("/")
    .map((part) => {
      if (part === "*") return ".*";
      const param = /^:\w+(?:\{(.+)\})?$/.exec(part);
      if (param) return param[1] ? `(?:${param[1]})` : "[^/]+";
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}$`);
}

/** The route serving a request: Hono runs the first registered route that matches. */
function servedBy(routes: string[], method: string, path: string): string | undefined {
  const bare = trimSlash(path.split("?")[0]!.replace(/\{\w+\}/g, "record-id"));
  return routes.find((route) => {
    const [routeMethod, pattern] = route.split(" ") as [string, string];
    return routeMethod === method && pathRegex(pattern).test(bare);
  });
}

/** Whether a list entry (one ending in `/*` names every route under it) covers a route. */
const listed = (list: string[], route: string) =>
  list.some((entry) => entry === route || (entry.endsWith("/*") && route.startsWith(entry.slice(0, -1))));

/** The app's routes that neither a row of the security table serves nor the public or bearer lists name. */
function unguardedRoutes(
  routes: string[],
  table: ProtectedRoute[],
  publicRoutes: string[],
  bearerRoutes: string[],
): string[] {
  const tested = new Set(table.map((row) => servedBy(routes, row.method, row.path)));
  return routes.filter(
    (route) => !tested.has(route) && !listed(publicRoutes, route) && !listed(bearerRoutes, route),
  );
}

describe("the security table against the app's routes", () => {
  const routes = appRoutes();

  it("finds the routes it must see (the walk itself works)", () => {
    expect(routes).toContain("GET /health");
    expect(routes).toContain("PATCH /pilot/v2/:id");
    expect(routes.length).toBeGreaterThan(80);
  });

  it("names every route of the app: in the matrix, public on purpose, or bearer-only", () => {
    const missing = unguardedRoutes(routes, PROTECTED_ROUTES, PUBLIC_ROUTES, BEARER_ROUTES);
    expect(
      missing,
      `routes missing from test/worker/security/routes.ts (add a row, or a commented public/bearer entry):\n  ${missing.join("\n  ")}`,
    ).toEqual([]);
  });

  it("would fail on a route added without a row", () => {
    const added = ["POST /flight/v2/:flight_id/unguarded", "GET /reports/v1/daily"];
    const before = unguardedRoutes(routes, PROTECTED_ROUTES, PUBLIC_ROUTES, BEARER_ROUTES);
    const after = unguardedRoutes([...routes, ...added], PROTECTED_ROUTES, PUBLIC_ROUTES, BEARER_ROUTES);
    expect(after.filter((route) => !before.includes(route))).toEqual(added);
  });

  it("has no stale row: each reaches a route of its method", () => {
    const stale = PROTECTED_ROUTES.filter((row) => !servedBy(routes, row.method, row.path)).map(
      (row) => `${row.method} ${row.path}`,
    );
    expect(stale).toEqual([]);
  });

  it("has no stale public or bearer entry, and no route both protected and listed", () => {
    const entries = [...PUBLIC_ROUTES, ...BEARER_ROUTES];
    expect(entries.filter((entry) => !routes.some((route) => listed([entry], route)))).toEqual([]);
    const both = PROTECTED_ROUTES.map((row) => servedBy(routes, row.method, row.path)!).filter((route) =>
      listed(entries, route),
    );
    expect(both).toEqual([]);
  });
});

describe("bearer-only routes", () => {
  // An API key opens none of them: without their own bearer credential each is 401.
  it.each(BEARER_ROUTES)("%s refuses a request without its bearer credential", async (route) => {
    const account = await createAccount();
    const [method, pattern] = route.split(" ") as [string, string];
    const path = pattern.replace(/:\w+(\{[^}]+\})?/g, "record-id");
    const res = await call(path, { method, apiKey: account.apiKey });
    expect(res.status, res.text).toBe(401);
  });
});
