/**
 * A token bucket per source address: each refills at `perSecond` up to `burst`. Full buckets are
 * swept away, so idle sources cost nothing.
 */
export class SourceRateLimit {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** Takes one datagram's token from the source; false when it has none left. 0/s means unlimited. */
  take(source: string, now: number): boolean {
    if (this.perSecond === 0) return true;
    let bucket = this.buckets.get(source);
    if (!bucket) {
      bucket = { tokens: this.burst, updatedAt: now };
      this.buckets.set(source, bucket);
    } else {
      bucket.tokens = Math.min(
        this.burst,
        bucket.tokens + ((now - bucket.updatedAt) * this.perSecond) / 1000,
      );
      bucket.updatedAt = now;
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Forgets sources whose buckets have refilled completely: they would start full anyway. */
  sweep(now: number): void {
    for (const [source, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) * this.perSecond) / 1000 >= this.burst) {
        this.buckets.delete(source);
      }
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
