import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";

/** Live streams open at once across all of one account's flights; beyond, 429. */
export const MAX_STREAMS_PER_ACCOUNT = 200;
/**
 * A flight that has not reported its count for this long is forgotten: its Durable Object was reset
 * or evicted without releasing. Flights with streams report every LIVE_CHECK_MS (5 s).
 */
const STALE_MS = 20_000;

interface FlightCount {
  open: number;
  reportedAt: number;
}

/**
 * One account's live streams, counted across its flights: one Durable Object per account (named by
 * its id), so the cap holds whichever isolate or location serves the watchers. Each flight's
 * Durable Object claims a place before it opens a stream, releases it when the stream ends, and
 * reports its true count while it has streams, which repairs a count a lost release left behind.
 * The counts live in memory: a reset object starts from zero and learns the counts within one report.
 */
export class AccountStreams extends DurableObject<Bindings> {
  private readonly flights = new Map<string, FlightCount>();

  /** A place for one more stream of `flightId`, unless the account has MAX_STREAMS_PER_ACCOUNT open. */
  claim(flightId: string): boolean {
    const now = Date.now();
    if (this.total(now) >= MAX_STREAMS_PER_ACCOUNT) return false;
    const entry = this.flights.get(flightId);
    this.flights.set(flightId, { open: (entry?.open ?? 0) + 1, reportedAt: now });
    return true;
  }

  /** A stream of `flightId` ended. */
  release(flightId: string): void {
    const entry = this.flights.get(flightId);
    if (!entry) return;
    if (entry.open > 1) entry.open -= 1;
    else this.flights.delete(flightId);
  }

  /** The flight's own count of its open streams, which replaces what was counted for it. */
  report(flightId: string, open: number): void {
    if (open > 0) this.flights.set(flightId, { open, reportedAt: Date.now() });
    else this.flights.delete(flightId);
  }

  /** Streams open now across the account (for tests and the bench's output). */
  openStreams(): number {
    return this.total(Date.now());
  }

  private total(now: number): number {
    let total = 0;
    for (const [flightId, entry] of this.flights) {
      if (now - entry.reportedAt > STALE_MS) this.flights.delete(flightId);
      else total += entry.open;
    }
    return total;
  }
}

/** The Durable Object that counts one account's live streams. */
export function accountStreamsOf(
  env: { ACCOUNT_STREAMS: DurableObjectNamespace<AccountStreams> },
  accountId: string,
) {
  return env.ACCOUNT_STREAMS.get(env.ACCOUNT_STREAMS.idFromName(accountId));
}
