import type { Session } from "./workerClient";

/** What the worker said about a flight: its open session, or null for none (cached negatively). */
export interface KeyEntry {
  session: Session | null;
  /** When the flight was last looked up, successfully or not. */
  checkedAt: number;
  expiresAt: number;
}

export interface KeyCacheOptions {
  /** How long a found session is trusted before it is looked up again. */
  ttlMs: number;
  /** How long "no open session" is trusted: a flood for unknown flights costs one look-up per period. */
  negativeTtlMs: number;
  /** The least time between two look-ups of one flight: after a failure, or forced by decrypt failures. */
  retryAfterMs: number;
  maxEntries: number;
  /** At most this many look-ups at once; datagrams of further unknown flights are dropped meanwhile. */
  maxPendingFetches: number;
}

export class KeyUnavailable extends Error {}

/**
 * Session keys by flight id. Reads are synchronous while an entry exists: an expired entry keeps
 * serving while it is refreshed in the background, and keeps serving when the worker cannot be
 * reached, so an outage does not stop intake for flights already known.
 */
export class KeyCache {
  private readonly entries = new Map<string, KeyEntry>();
  private readonly fetches = new Map<string, Promise<KeyEntry>>();
  /** Refetches waiting for their flight's retry interval to pass. */
  private readonly scheduled = new Map<string, Promise<KeyEntry>>();
  /** Flights whose look-up failed without a cached entry to fall back on, and when. */
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly fetchSession: (flightId: string) => Promise<Session | null>,
    private readonly options: KeyCacheOptions,
    private readonly onFetch: (result: "found" | "absent" | "error") => void = () => {},
  ) {}

  /** The cached entry, if any, starting a background refresh when it has expired. */
  peek(flightId: string, now: number): KeyEntry | undefined {
    const entry = this.entries.get(flightId);
    if (entry && entry.expiresAt <= now) this.fetch(flightId, now).catch(() => {});
    return entry;
  }

  /**
   * Looks the flight up (once for concurrent callers). Rejects with KeyUnavailable when the worker
   * cannot answer, when the last try failed moments ago, or when too many look-ups are pending.
   */
  load(flightId: string, now: number): Promise<KeyEntry> {
    const failedAt = this.failures.get(flightId);
    if (failedAt !== undefined && now - failedAt < this.options.retryAfterMs) {
      return Promise.reject(new KeyUnavailable("the last look-up failed moments ago"));
    }
    if (!this.fetches.has(flightId) && this.fetches.size >= this.options.maxPendingFetches) {
      return Promise.reject(new KeyUnavailable("too many look-ups pending"));
    }
    return this.fetch(flightId, now);
  }

  /**
   * Looks the flight up again after a datagram failed to decrypt (its session may have rotated): at
   * once, or, when it was looked up moments ago, as soon as retryAfterMs have passed since.
   */
  refetch(flightId: string, now: number): Promise<KeyEntry> {
    const entry = this.entries.get(flightId);
    const wait = entry ? entry.checkedAt + this.options.retryAfterMs - now : 0;
    if (wait <= 0) return this.load(flightId, now);
    let scheduled = this.scheduled.get(flightId);
    if (!scheduled) {
      scheduled = new Promise<void>((resolve) => setTimeout(resolve, wait))
        .then(() => this.load(flightId, Date.now()))
        .finally(() => this.scheduled.delete(flightId));
      this.scheduled.set(flightId, scheduled);
    }
    return scheduled;
  }

  /** Forgets a flight, e.g. when the worker says its session closed. */
  evict(flightId: string): void {
    this.entries.delete(flightId);
  }

  get size(): number {
    return this.entries.size;
  }

  private fetch(flightId: string, now: number): Promise<KeyEntry> {
    let pending = this.fetches.get(flightId);
    if (pending) return pending;
    pending = this.fetchSession(flightId)
      .then(
        (session) => {
          this.onFetch(session ? "found" : "absent");
          this.failures.delete(flightId);
          const ttl = session ? this.options.ttlMs : this.options.negativeTtlMs;
          return this.store(flightId, { session, checkedAt: now, expiresAt: now + ttl });
        },
        (err) => {
          this.onFetch("error");
          const stale = this.entries.get(flightId);
          if (stale) {
            // Keep serving the last answer; ask again only after a pause.
            stale.checkedAt = now;
            stale.expiresAt = now + this.options.retryAfterMs;
            return stale;
          }
          if (this.failures.size >= this.options.maxEntries) this.failures.clear();
          this.failures.set(flightId, now);
          throw new KeyUnavailable(String((err as Error).message));
        },
      )
      .finally(() => this.fetches.delete(flightId));
    this.fetches.set(flightId, pending);
    return pending;
  }

  private store(flightId: string, entry: KeyEntry): KeyEntry {
    // Re-inserting keeps the map in least-recently-fetched order, so the oldest entry goes first.
    this.entries.delete(flightId);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(flightId, entry);
    return entry;
  }
}
