/** A JSON object (not null, not an array): what the readers of untyped documents walk into. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
