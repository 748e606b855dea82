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

  /** Whether a token is left, without taking it. */
  has(now: number): boolean {
    if (this.perSecond === 0) return true;
    this.refill(now);
    return this.tokens >= 1;
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
 * Failures per source address: bad framing, malformed flight ids, flights without a session, failed
 * decryption, replays. Valid traffic never takes a token, so a carrier NAT or a ground station sending
 * for a whole fleet from one address is never limited by its address. A source whose bucket is empty
 * loses what failing traffic costs the service: it may no longer make the relay look keys up from the
 * worker (new flights, refetches after decrypt failures) until its bucket refills. Its datagrams for
 * flights already known are still handled as usual.
 */
export class SourceFailures {
  private readonly buckets = new Map<string, TokenBucket>();
  /** Look-ups a source has under way: their failures are charged only when they come back. */
  private readonly lookingUp = new Map<string, number>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    /** Look-ups one source may have under way at once, so a slow worker cannot stretch its budget. */
    private readonly maxLookUpsUnderWay = 1024,
    private readonly maxSources = 100_000,
  ) {}

  /** Notes a look-up the source caused; call the returned function once it has come back. */
  lookUp(source: string): () => void {
    this.lookingUp.set(source, (this.lookingUp.get(source) ?? 0) + 1);
    return () => {
      const left = this.lookingUp.get(source)! - 1;
      if (left > 0) this.lookingUp.set(source, left);
      else this.lookingUp.delete(source);
    };
  }

  /** Counts one failing datagram of the source. */
  charge(source: string, now: number): void {
    if (this.perSecond === 0) return;
    let bucket = this.buckets.get(source);
    if (!bucket) {
      // A flood of spoofed source addresses must not grow the map without bound: start again.
      if (this.buckets.size >= this.maxSources) this.buckets.clear();
      bucket = new TokenBucket(this.perSecond, this.burst, now);
      this.buckets.set(source, bucket);
    }
    bucket.owe(now);
  }

  /** Whether the source may cause another key look-up: budget left, and not too many under way. */
  mayLookUp(source: string, now: number): boolean {
    if ((this.lookingUp.get(source) ?? 0) >= this.maxLookUpsUnderWay) return false;
    return this.buckets.get(source)?.has(now) ?? true;
  }

  /** Forgets sources whose buckets have refilled completely. */
  sweep(now: number): void {
    for (const [source, bucket] of this.buckets) if (bucket.full(now)) this.buckets.delete(source);
  }

  get size(): number {
    return this.buckets.size;
  }
}
