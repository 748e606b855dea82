/**
 * What an isolate remembers for a while (API key look-ups, CORS lists): each entry expires after its
 * own time, and the whole cache is dropped rather than grown past `maxEntries`, so a flood of
 * distinct keys costs memory only up to that bound.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly maxEntries: number) {}

  /** The value kept for `key`, or undefined when none is kept or it has expired. */
  get(key: string, now = Date.now()): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > now ? hit.value : undefined;
  }

  has(key: string, now = Date.now()): boolean {
    const hit = this.entries.get(key);
    return hit !== undefined && hit.expiresAt > now;
  }

  set(key: string, value: V, ttlMs: number, now = Date.now()): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expiresAt: now + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
