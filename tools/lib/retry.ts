/**
 * Retries for the steps of `npm start` that talk to the local platform (wrangler's migrations,
 * Miniflare's D1 and R2 over loopback). On a loaded machine a request to the local runtime can fail
 * in transit (`fetch failed`, a socket closed or timed out) though the step would succeed on a second
 * try: those are retried a bounded number of times; a failure that remains names the step, its causes
 * and what to do.
 */

/** A step's failure: what was being done, why (the error's causes, outermost first) and what to do. */
export class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly reason: unknown,
    attempts: number,
  ) {
    const tries = attempts > 1 ? ` (${attempts} attempts)` : "";
    super(`${step} failed${tries}: ${describeError(reason)}\n  ${whatToDo(reason)}`, { cause: reason });
  }
}

/** Undici's and Node's codes for a connection that failed, closed or timed out in transit. */
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
const TRANSIENT_MESSAGES =
  /fetch failed|socket hang up|other side closed|network connection lost|timed? ?out/i;

/** Whether `err` (or any of its causes) is a failure in transit, which a second try may not meet. */
export function isTransient(err: unknown): boolean {
  return causes(err).some((e) => {
    const code = (e as { code?: unknown }).code;
    return (typeof code === "string" && TRANSIENT_CODES.has(code)) || TRANSIENT_MESSAGES.test(messageOf(e));
  });
}

/** The error and its causes in one line: `fetch failed ← other side closed (UND_ERR_SOCKET)`. */
export function describeError(err: unknown): string {
  return causes(err)
    .map((e) => {
      const code = (e as { code?: unknown }).code;
      const message = messageOf(e);
      return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
    })
    .join(" ← ");
}

function whatToDo(err: unknown): string {
  return isTransient(err)
    ? "The local platform did not answer in time, which happens on a busy machine: run `npm start` again " +
        "(finished steps are kept), or again when the machine is less loaded."
    : "Run `npm start` again; if the same step fails, remove the state directory (STATE_DIR, default " +
        ".windsock) to start from a fresh one.";
}

export interface RetryOptions {
  /** Tries in all; default 3. */
  attempts?: number;
  /** The wait before the n-th retry is n times this; default 2 s. */
  backoffMs?: number;
  log?: (message: string) => void;
}

/**
 * Runs `step`, again after a transient failure (at most `attempts` tries, waiting longer each time);
 * any other failure, or the last, is thrown as a StepFailed naming `name`, or the inner step that
 * failed (see `namedStep`).
 */
export async function retryStep<T>(
  name: string,
  step: () => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = options.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const failure = err instanceof StepFailed ? err : new StepFailed(name, err, 1);
      if (attempt >= attempts || !isTransient(failure.reason))
        throw new StepFailed(failure.step, failure.reason, attempt);
      const waitMs = attempt * (options.backoffMs ?? 2000);
      options.log?.(
        `${failure.step}: ${describeError(failure.reason)}; trying again in ${waitMs / 1000} s (${attempt}/${attempts - 1})`,
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** Runs `step`; its failure is a StepFailed naming it, so an enclosing retryStep says which step failed. */
export async function namedStep<T>(name: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw err instanceof StepFailed ? err : new StepFailed(name, err, 1);
  }
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e !== undefined && e !== null && chain.length < 8; e = (e as { cause?: unknown }).cause) {
    chain.push(e);
    if (typeof e !== "object") break;
  }
  return chain;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** SQLite's answer to a write while another process (the running copy's workerd) holds the lock. */
const LOCKED = /database is locked|SQLITE_BUSY/i;

/**
 * Runs one atomic call on the local database (a statement, or a batch, which D1 runs as one
 * transaction), again while SQLite answers "database is locked": the operator tools open the file a
 * running `npm start` serves, and neither process waits for the other's lock by itself. A locked call
 * wrote nothing, so trying it again is safe. Gives up after about 6 s.
 */
export async function whileLocked<T>(call: () => Promise<T>): Promise<T> {
  for (let waitMs = 25; ; waitMs *= 2) {
    try {
      return await call();
    } catch (err) {
      if (waitMs > 3200 || !causes(err).some((e) => LOCKED.test(messageOf(e)))) throw err;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
