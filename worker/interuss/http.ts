import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { jsonBody } from "../lib/openapi";

/**
 * The HTTP manners every standards interface here shares (`/interuss/…`, `/rid/v2/…`): errors are
 * the interfaces' `{"message"}` with the status, not JSend (an exception to CONTRACT §1).
 */
export const InterussError = z.object({ message: z.string() }).openapi("InterussError");

/**
 * The service-wide answers that come before these interfaces' own handlers (unknown route, 405,
 * 415, body limits) are written as JSend; under `/interuss/` and `/rid/` they go out as the
 * interfaces' `{"message"}` instead, with the same status and headers.
 */
export const standardsErrorBodies = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status < 400 || !c.res.headers.get("content-type")?.includes("application/json")) return;
  const body = (await c.res.clone().json()) as {
    status?: unknown;
    data?: { message?: unknown };
    message?: unknown;
  };
  if (body.status !== "fail" && body.status !== "error") return;
  const message = typeof body.data?.message === "string" ? body.data.message : String(body.message ?? "");
  const headers = new Headers(c.res.headers);
  c.res = new Response(JSON.stringify({ message }), { status: c.res.status, headers });
});

export const errorResponse = (description: string) => ({
  content: { "application/json": { schema: InterussError } },
  description,
});

export const AUTH_ERRORS = {
  401: errorResponse("Bearer access token missing, undecodable or invalid"),
  403: errorResponse("The access token lacks the scope of this endpoint"),
  429: errorResponse("Too many requests from this client; see Retry-After"),
} as const;

/** A notification shown to the planning user (interfaces' user_notification.yaml). */
export const UserNotification = z
  .object({
    observed_at: z.object({ value: z.string(), format: z.literal("RFC3339") }),
    conflicts: z.enum(["Unknown", "None", "Single", "Multiple"]).optional(),
    message: z.string().optional(),
  })
  .openapi("UserNotification");

/** A request body the handler checks itself against the interface (named for the document). */
export const bodyOf = (name: string) => jsonBody(z.looseObject({}).openapi(name));

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

/** Validation failures name the first field at fault, as the interfaces' own services do. */
export function interussValidationHook(
  result: {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
    target?: string;
  },
  c: Context,
) {
  if (result.success) return;
  const issue = result.error?.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join(".") : result.target;
  return c.json({ message: `${field}: ${issue?.message ?? "invalid"}` }, 400);
}

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Renders an error as `{"message"}`: the interface's own error classes with their statuses first,
 * then client errors raised by shared middleware, and anything else as a logged 500.
 */
export function renderInterussError(known: [ErrorClass, ContentfulStatusCode][]) {
  return (e: Error, c: Context<AppEnv>) => {
    for (const [type, status] of known) if (e instanceof type) return c.json({ message: e.message }, status);
    if (e instanceof ApiError) return c.json({ message: e.message }, e.status, e.headers);
    if (e instanceof HTTPException && e.status < 500)
      return c.json({ message: e.message || "Bad request" }, e.status);
    console.error(JSON.stringify({ level: "error", path: c.req.path, error: String(e?.stack ?? e) }));
    return c.json({ message: "Internal server error" }, 500);
  };
}
