import { TokenBucket } from "./rateLimit";
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
  /** At most this many look-ups at once; further ones wait in line (up to maxQueuedFetches). */
  maxPendingFetches: number;
  maxQueuedFetches?: number;
  /**
   * Look-ups of flights not in the cache, across all sources: a flood of made-up flight ids costs the
   * worker at most this many a second (0: no limit)…
   */
  lookUpsPerSecond?: number;
  /** …and at once. */
  lookUpBurst?: number;
}

/** Why no key could be had: the worker failed or is busy (`key_unavailable`), or the budget is spent. */
export class KeyUnavailable extends Error {
  constructor(
    message: string,
    readonly reason: "key_unavailable" | "lookup_budget" = "key_unavailable",
  ) {
    super(message);
  }
}

interface Queued {
  promise: Promise<KeyEntry>;
  resolve: (entry: KeyEntry) => void;
  reject: (err: unknown) => void;
}

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
  /** Look-ups waiting for one of the maxPendingFetches slots, in order. */
  private readonly queued = new Map<string, Queued>();
  private readonly budget: TokenBucket;

  constructor(
    private readonly fetchSession: (flightId: string) => Promise<Session | null>,
    private readonly options: KeyCacheOptions,
    private readonly onFetch: (result: "found" | "absent" | "error") => void = () => {},
  ) {
    const perSecond = options.lookUpsPerSecond ?? 0;
    this.budget = new TokenBucket(perSecond, options.lookUpBurst ?? 10 * perSecond);
  }

  /**
   * The cached entry, if any. A found session that has expired keeps serving while it is refreshed in
   * the background; an expired "no open session" is no answer: the caller looks the flight up again
   * through load(), so the look-up is paid for by whoever caused it (a background refresh per made-up
   * flight id was free for a flood repeating its ids).
   */
  peek(flightId: string, now: number): KeyEntry | undefined {
    const entry = this.entries.get(flightId);
    if (entry === undefined || entry.expiresAt > now) return entry;
    if (entry.session === null) return undefined;
    this.fetch(flightId, now).catch(() => {});
    return entry;
  }

  /**
   * Looks the flight up (once for concurrent callers); beyond maxPendingFetches at once, look-ups wait
   * in line. Rejects with KeyUnavailable when the worker cannot answer, when the last try failed
   * moments ago, when the line is full, or when the look-up budget is spent.
   */
  load(flightId: string, now: number): Promise<KeyEntry> {
    const running = this.fetches.get(flightId) ?? this.queued.get(flightId)?.promise;
    if (running) return running;
    const failedAt = this.failures.get(flightId);
    if (failedAt !== undefined && now - failedAt < this.options.retryAfterMs) {
      return Promise.reject(new KeyUnavailable("the last look-up failed moments ago"));
    }
    if (!this.budget.take(now)) {
      return Promise.reject(new KeyUnavailable("key look-up budget spent", "lookup_budget"));
    }
    if (this.fetches.size < this.options.maxPendingFetches) return this.fetch(flightId, now);
    if (this.queued.size >= (this.options.maxQueuedFetches ?? 10_000)) {
      return Promise.reject(new KeyUnavailable("too many look-ups waiting"));
    }
    let queued: Queued | undefined;
    const promise = new Promise<KeyEntry>((resolve, reject) => {
      queued = { promise: undefined as unknown as Promise<KeyEntry>, resolve, reject };
    });
    queued!.promise = promise;
    this.queued.set(flightId, queued!);
    return promise;
  }

  /** Whether the flight is being looked up (or waits in line, or for its refetch): a caller joins it. */
  isLoading(flightId: string): boolean {
    return this.fetches.has(flightId) || this.queued.has(flightId) || this.scheduled.has(flightId);
  }

  /** Look-ups waiting in line, for the metrics. */
  get waiting(): number {
    return this.queued.size;
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
      .finally(() => {
        this.fetches.delete(flightId);
        this.startQueued();
      });
    this.fetches.set(flightId, pending);
    return pending;
  }

  private startQueued(): void {
    for (const [flightId, queued] of this.queued) {
      if (this.fetches.size >= this.options.maxPendingFetches) return;
      this.queued.delete(flightId);
      this.fetch(flightId, Date.now()).then(queued.resolve, queued.reject);
    }
  }

  private store(flightId: string, entry: KeyEntry): KeyEntry {
    // Re-inserting keeps the map in least-recently-fetched order, so the oldest entry goes first.
    this.entries.delete(flightId);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(flightId, entry);
    return entry;
  }
}
