import type { Context } from "hono";

/** A field that failed validation: `name` is the field or query parameter. */
export interface FieldError {
  name: string;
  message: string;
}

export function success<T>(c: Context, data: T) {
  return c.json({ status: "success" as const, data }, 200);
}

export function failBody(code: number, message: string, errors: FieldError[] = []) {
  return { status: "fail" as const, data: { code, message, errors } };
}

export function errorBody(code: number, message: string) {
  return { status: "error" as const, code, message };
}
