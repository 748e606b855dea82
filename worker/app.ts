import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./env";
import { ApiError } from "./lib/errors";
import { errorBody, type FieldError, failBody } from "./lib/jsend";

type ValidationResult =
  | { success: true }
  | { success: false; error: { issues: ZodIssueLike[] }; target: string };
interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

/** The one place validation failures become JSend: every invalid field named once. */
export function validationHook(result: ValidationResult): void {
  if (result.success) return;
  throw validationError(result.error.issues, result.target);
}

export function validationError(issues: ZodIssueLike[], target = "json"): ApiError {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const name =
      issue.path.length > 0 ? issue.path.map(String).join(".") : target === "json" ? "body" : target;
    if (seen.has(name)) continue;
    seen.add(name);
    errors.push({ name, message: issue.message });
  }
  const fields = errors.map((e) => e.name).join(", ");
  return new ApiError(400, `Invalid request: check ${fields}`, errors);
}

/**
 * The body of a route documented with `jsonOrFormBody`: the JSON or the form that came (each already
 * validated by its content type), or, when neither did, `{}` checked by `schema` so that a missing
 * required field is named.
 */
export function jsonOrForm<T>(
  schema: { safeParse(value: unknown): { success: boolean; data?: T; error?: { issues: ZodIssueLike[] } } },
  submitted: { json: unknown; form: unknown },
): T {
  for (const body of [submitted.json, submitted.form])
    if (typeof body === "object" && body !== null && Object.keys(body).length > 0) return body as T;
  const parsed = schema.safeParse({});
  if (!parsed.success) throw validationError(parsed.error!.issues);
  return parsed.data as T;
}

/** A router with the shared validation hook; every API area builds on one of these. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never, strict: false });
}

export function renderError(err: Error, c: Context) {
  if (err instanceof ApiError) {
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    if (err.status === 503) return c.json(errorBody(503, err.message), 503);
    return c.json(failBody(err.status, err.message, err.errors), err.status);
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 400) {
      const message = err.message || "Bad request";
      return c.json(failBody(400, message, [{ name: "body", message }]), 400);
    }
    if (status === 415) {
      const message = "Unsupported Content-Type: send the body as JSON with Content-Type: application/json";
      return c.json(failBody(415, message, [{ name: "content-type", message }]), 415);
    }
    if (status >= 400 && status < 500)
      return c.json(failBody(status, err.message || "Request refused"), status);
  }
  console.error(JSON.stringify({ level: "error", path: c.req.path, error: String(err?.stack ?? err) }));
  return c.json(errorBody(500, "Internal server error; the request was not completed"), 500);
}

/** 404 for unknown paths, 405 (with Allow) when the path exists under another method. */
export function renderNotFound(app: OpenAPIHono<AppEnv>) {
  const allowedAt = methodsAt(app);
  return (c: Context) => {
    const allowed = allowedAt(c.req.path);
    if (allowed.length > 0) return methodNotAllowed(c, allowed);
    return c.json(failBody(404, `No route for ${c.req.method} ${c.req.path}`), 404);
  };
}

/**
 * 405 before routing when the path is literally another method's route: `DELETE /flight/v2/plan`
 * is POST's own path, which the router would otherwise hand to `DELETE /flight/v2/{flight_id}`.
 */
export function refuseOtherMethods(app: OpenAPIHono<AppEnv>) {
  const allowedAt = methodsAt(app);
  return createMiddleware<AppEnv>(async (c, next) => {
    const allowed = allowedAt(c.req.path);
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (allowed.length > 0 && !allowed.includes(method)) return methodNotAllowed(c, allowed);
    await next();
  });
}

function methodNotAllowed(c: Context, allowed: string[]) {
  c.header("Allow", allowed.join(", "));
  return c.json(failBody(405, `Method ${c.req.method} not allowed here; use ${allowed.join(" or ")}`), 405);
}

/** The methods of the most literal routes matching a path (built on first use, when all are mounted). */
function methodsAt(app: OpenAPIHono<AppEnv>): (path: string) => string[] {
  let patterns: RoutePattern<{ method: string }>[] | undefined;
  return (path) => {
    patterns ??= app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ ...pathPattern(r.path, ":"), method: r.method }));
    return [...new Set(mostSpecific(patterns, path).map((p) => p.method))];
  };
}

const JSON_TYPE = "application/json";
const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * 415 before validation when a body comes in a media type its route does not document, so a client
 * learns to send JSON instead of reading "user_id: expected string". A form-typed body that is
 * really JSON (`curl -d '{…}'` without a Content-Type) is told so.
 */
export function requireDocumentedBodyType(app: OpenAPIHono<AppEnv>) {
  let byMethod: Map<string, RoutePattern<{ method: string; types: string[] }>[]> | undefined;
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method !== "POST" && c.req.method !== "PATCH" && c.req.method !== "PUT") return next();
    byMethod ??= bodiesByMethod(app);
    const route = mostSpecific(byMethod.get(c.req.method) ?? [], c.req.path)[0];
    if (!route || route.types.length === 0) return next();
    const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
    const jsonAccepted = route.types.includes(JSON_TYPE);
    const formAccepted = route.types.some((t) => FORM_TYPES.includes(t));
    const isJson = type === JSON_TYPE || /^application\/[\w.-]+\+json$/.test(type);
    const isForm = FORM_TYPES.includes(type);
    if (isJson && jsonAccepted) return next();
    if (isForm && formAccepted) {
      // Read as bytes: workerd warns when .text() is called on a form body.
      const text =
        type === FORM_TYPES[0] && jsonAccepted ? new TextDecoder().decode(await c.req.arrayBuffer()) : "";
      if (/^\s*[{[]/.test(text))
        throw unsupportedType(`The body is JSON but Content-Type says ${type}`, true, false);
      return next();
    }
    if (!type && (c.req.raw.body === null || c.req.header("content-length") === "0")) return next();
    throw unsupportedType(
      type ? `Content-Type ${type} is not accepted here` : "The body has no Content-Type",
      jsonAccepted,
      formAccepted,
    );
  });
}

function unsupportedType(problem: string, json: boolean, form: boolean): ApiError {
  const accepted = [json ? JSON_TYPE : "", form ? FORM_TYPES[0] : ""].filter(Boolean);
  const message = `${problem}: send the body as ${accepted.join(" or ")} with a matching Content-Type header`;
  return new ApiError(415, message, [{ name: "content-type", message: `use ${accepted.join(" or ")}` }]);
}

/** documentedBodies by method: a request is matched only against its own method's routes. */
function bodiesByMethod(app: OpenAPIHono<AppEnv>) {
  const byMethod = new Map<string, ReturnType<typeof documentedBodies>>();
  for (const route of documentedBodies(app)) {
    const routes = byMethod.get(route.method);
    if (routes) routes.push(route);
    else byMethod.set(route.method, [route]);
  }
  return byMethod;
}

/** Method, path and body media types of every route documented with a request body. */
function documentedBodies(app: OpenAPIHono<AppEnv>) {
  return app.openAPIRegistry.definitions.flatMap((definition) => {
    if (definition.type !== "route") return [];
    const { method, path, request } = definition.route;
    const content = request?.body?.content ?? {};
    return [{ ...pathPattern(path, "{"), method: method.toUpperCase(), types: Object.keys(content) }];
  });
}

type RoutePattern<T> = T & { regex: RegExp; rank: number[] };

/** A route path (Hono's `:id` or OpenAPI's `{id}`) as a regex, and how literal each segment is. */
function pathPattern(path: string, param: ":" | "{"): { regex: RegExp; rank: number[] } {
  const parts = trimSlash(path).split("/");
  const rank = parts.map((part) => (part === "*" ? 0 : part.startsWith(param) ? 1 : 2));
  const source = parts
    .map((part, i) =>
      rank[i] === 0 ? ".*" : rank[i] === 1 ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return { regex: new RegExp(`^${source}$`), rank };
}

/** The patterns matching `path` whose segments are the most literal, left to right. */
function mostSpecific<T>(patterns: RoutePattern<T>[], path: string): RoutePattern<T>[] {
  let best: RoutePattern<T>[] = [];
  const trimmed = trimSlash(path);
  for (const pattern of patterns) {
    if (!pattern.regex.test(trimmed)) continue;
    const order = best[0] ? compareRank(pattern.rank, best[0].rank) : 1;
    if (order > 0) best = [pattern];
    else if (order === 0) best.push(pattern);
  }
  return best;
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? -1) - (b[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}
