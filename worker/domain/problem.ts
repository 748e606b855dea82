/**
 * What is wrong with an input, as the domain sees it: the field at fault and what to do about it.
 * The domain returns problems as values; routes turn them into JSend errors (lib/errors.ts
 * `problemError`), so no domain module knows an HTTP status.
 */
export interface Problem {
  /** The field or parameter at fault, as the client named it. */
  field: string;
  /** What looks wrong and what to send instead. */
  message: string;
  /** Input that is well-formed but bigger than the service takes (a 413 rather than a 400). */
  tooLarge?: boolean;
}

/** A domain answer that is either a value or the problems that prevent it. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

export const checked = <T>(value: T): Checked<T> => ({ ok: true, value });
export const problem = (field: string, message: string, tooLarge = false): Checked<never> => ({
  ok: false,
  problems: [{ field, message, ...(tooLarge ? { tooLarge } : {}) }],
});
