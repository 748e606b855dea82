import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { TtlCache } from "../lib/ttlCache";

/**
 * Refusals answered slowly to whoever keeps asking. After FREE_REFUSALS 429s in a row to one caller
 * (an address, a ticket, an API key, an account's pages), each further 429 waits REFUSAL_HOLD_MS
 * before it goes out. A client that honours Retry-After never meets the wait; a flood on N
 * connections slows to about N refusals a second, where each refusal had cost the local front about
 * 3 ms of CPU (500 a second took most of a core: docs/benchmarks.md). Waiting costs a Worker no CPU.
 * At most MAX_HELD refusals wait at once in an isolate; beyond them a refusal goes out at once.
 */
export const FREE_REFUSALS = 10;
export const REFUSAL_HOLD_MS = 1_000;
export const MAX_HELD = 1_000;
/** A caller's refusals are forgotten a minute after the last (the rate limits' window). */
const REFUSAL_MEMORY_MS = 60_000;
const MAX_CALLERS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Tarpit {
  private readonly inRow = new TtlCache<number>(MAX_CALLERS);
  private readonly holds = new WeakMap<Error, number>();
  private held = 0;

  constructor(private readonly wait: (ms: number) => Promise<void> = sleep) {}

  /** `caller` was let through: its refusals in a row start again. */
  allowed(caller: string): void {
    this.inRow.delete(caller);
  }

  /** The refusal of `caller` to throw, marked to be held when it keeps asking. */
  refuse<E extends Error>(caller: string, refusal: E, now = Date.now()): E {
    const count = (this.inRow.get(caller, now) ?? 0) + 1;
    this.inRow.set(caller, count, REFUSAL_MEMORY_MS, now);
    if (count > FREE_REFUSALS) this.holds.set(refusal, REFUSAL_HOLD_MS);
    return refusal;
  }

  /** Waits as long as `error` is to be held (not at all for any other error, or past MAX_HELD). */
  async hold(error: Error | undefined): Promise<void> {
    const ms = error ? this.holds.get(error) : undefined;
    if (!ms || this.held >= MAX_HELD) return;
    this.held++;
    try {
      await this.wait(ms);
    } finally {
      this.held--;
    }
  }

  /** Refusals waiting right now. */
  get holding(): number {
    return this.held;
  }
}

export const tarpit = new Tarpit();

/** Outermost: a refusal marked by the tarpit goes out once its hold is over. */
export const holdRefusals = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  await tarpit.hold(c.error);
});
