/**
 * Token bucket per API key, held in the isolate: exact for one isolate (local development) and
 * a per-isolate bound in production, where Cloudflare spreads a key's traffic over few isolates.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  /** Takes one request from `id`'s bucket; returns 0 when allowed, else seconds until one is. */
  take(id: string, perMinute: number, now = Date.now()): number {
    const perMs = perMinute / 60_000;
    const bucket = this.buckets.get(id) ?? { tokens: perMinute, updatedAt: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    this.buckets.set(id, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / perMs / 1000;
  }
}
