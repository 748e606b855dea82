import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
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

/** A router with the shared validation hook; every API area builds on one of these. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never, strict: false });
}

export function renderError(err: Error, c: Context) {
  if (err instanceof ApiError) {
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    return c.json(failBody(err.status, err.message, err.errors), err.status);
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 400) {
      const message = err.message || "Bad request";
      return c.json(failBody(400, message, [{ name: "body", message }]), 400);
    }
    if (status === 415) {
      const message = "Send the body as application/json";
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
  let patterns: { method: string; regex: RegExp }[] | undefined;
  return (c: Context) => {
    patterns ??= app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ method: r.method, regex: pathPattern(r.path) }));
    const path = c.req.path.length > 1 ? c.req.path.replace(/\/+$/, "") : c.req.path;
    const allowed = [...new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method))];
    if (allowed.length > 0) {
      c.header("Allow", allowed.join(", "));
      return c.json(
        failBody(405, `Method ${c.req.method} not allowed here; use ${allowed.join(" or ")}`),
        405,
      );
    }
    return c.json(failBody(404, `No route for ${c.req.method} ${c.req.path}`), 404);
  };
}

function pathPattern(path: string): RegExp {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const source = trimmed
    .split("/")
    .map((part) =>
      part.startsWith(":") ? "[^/]+" : part === "*" ? ".*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${source}$`);
}
