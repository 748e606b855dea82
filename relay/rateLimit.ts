/** A token bucket: refills at `perSecond` up to `burst`. 0/s means unlimited. */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now = 0,
  ) {
    this.tokens = burst;
    this.updatedAt = now;
  }

  /** Takes one token; false when none is left. */
  take(now: number): boolean {
    if (this.perSecond === 0) return true;
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Takes one token even when none is left, down to a debt of one burst: failures found late (after a
   * look-up) are paid for by a longer wait.
   */
  owe(now: number): void {
    if (this.perSecond === 0) return;
    this.refill(now);
    this.tokens = Math.max(-this.burst, this.tokens - 1);
  }

  /** Gives back a token taken for something that turned out not to cost it. */
  give(now: number): void {
    if (this.perSecond === 0) return;
    this.refill(now);
    this.tokens = Math.min(this.burst, this.tokens + 1);
  }

  /** Whether the bucket is full again (it would start full anyway). */
  full(now: number): boolean {
    return (
      this.perSecond === 0 || this.tokens + ((now - this.updatedAt) * this.perSecond) / 1000 >= this.burst
    );
  }

  private refill(now: number): void {
    if (now > this.updatedAt) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) * this.perSecond) / 1000);
      this.updatedAt = now;
    }
  }
}

/**
 * Failures per source address: bad framing, malformed flight ids, failed decryption, replays, and key
 * look-ups that found nothing. Valid traffic costs no token for good, so a carrier NAT or a ground
 * station sending for a whole fleet from one address is never limited by its address. Every key
 * look-up a source causes (a new flight, a refetch after a decrypt failure) takes a token when it
 * starts, and gets it back only when it found the flight's session: look-ups under way are paid for,
 * so however many a flood starts at once and however slowly the worker answers, the look-ups that
 * find nothing stay within `burst` + `perSecond` a second. A source whose bucket is empty may cause no
 * look-up until it refills; its datagrams for flights already known are still handled as usual.
 */
export class SourceFailures {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly maxSources = 100_000,
  ) {}

  /** Counts one failing datagram of the source (its debt may reach one burst). */
  charge(source: string, now: number): void {
    if (this.perSecond === 0) return;
    this.bucketOf(source, now).owe(now);
  }

  /** Takes a token for a key look-up the source causes; false (nothing taken) when none is left. */
  beginLookUp(source: string, now: number): boolean {
    if (this.perSecond === 0) return true;
    return this.bucketOf(source, now).take(now);
  }

  /** Gives back the token of a look-up that found the flight's session (valid traffic costs nothing). */
  refund(source: string, now: number): void {
    this.buckets.get(source)?.give(now);
  }

  /** Forgets sources whose buckets have refilled completely. */
  sweep(now: number): void {
    for (const [source, bucket] of this.buckets) if (bucket.full(now)) this.buckets.delete(source);
  }

  get size(): number {
    return this.buckets.size;
  }

  private bucketOf(source: string, now: number): TokenBucket {
    let bucket = this.buckets.get(source);
    if (!bucket) {
      // A flood of spoofed source addresses must not grow the map without bound: start again.
      if (this.buckets.size >= this.maxSources) this.buckets.clear();
      bucket = new TokenBucket(this.perSecond, this.burst, now);
      this.buckets.set(source, bucket);
    }
    return bucket;
  }
}
