import type { FieldError } from "./jsend";

/**
 * Every client error the API answers, and a service not configured for the request (503): thrown
 * anywhere, rendered as JSend once, in app.ts.
 */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 503,
    message: string,
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (name: string, message: string) =>
  new ApiError(400, `Invalid ${name}: ${message}`, [{ name, message }]);
export const unauthorized = (message: string) => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string) => new ApiError(409, message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new ApiError(429, message, [], { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/**
 * The one mapping from domain problems (domain/problem.ts, matched by shape so lib stays below the
 * domain) to a JSend error: 413 when any input is too large, otherwise 400, every field named.
 */
export function problemError(problems: readonly { field: string; message: string; tooLarge?: boolean }[]) {
  const first = problems[0] ?? { field: "body", message: "is invalid" };
  const status = problems.some((p) => p.tooLarge) ? 413 : 400;
  return new ApiError(
    status,
    `Invalid ${first.field}: ${first.message}`,
    problems.map((p) => ({ name: p.field, message: p.message })),
  );
}
