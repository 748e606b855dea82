import { TokenBucket } from "./rateLimit";

/**
 * Replay protection and rate limit per session.
 *
 * The serial sits outside the ciphertext, so it proves nothing: a captured datagram can be resent
 * under any serial. A datagram is named by a keyed hash of its IV and ciphertext
 * (relay/datagramIdentity.ts): a resend under another serial keeps the name (and is a replay); any change to the IV
 * or a block makes another datagram. The relay remembers recent datagrams by 64 bits of that name,
 * once at least one of their records went to the worker; the worker's Durable Object keeps 128 bits
 * for good (unique per session and record index), so what falls out of this memory, or reaches
 * another relay, is still stored once. Serials never decide anything here, so no serial can make a
 * later datagram look old.
 */

/** Identities a session starts with room for; the room doubles as it sends more, up to MAX. */
const MIN_IDS = 64;
export const MAX_IDS_PER_SESSION = 16_384;

/**
 * The most recent datagram identities (two 32-bit halves, kept as int32 so V8 holds them unboxed), in
 * insertion order: a ring of keys and an open-addressing table (linear probing, at most half full) of
 * ring positions. No allocation per datagram; the oldest identity goes when the ring is full, found
 * through the table slot its ring position keeps (no probe to forget it).
 */
export class RecentIds {
  private ring: Int32Array;
  /** Ring position + 1 per slot; 0 is empty. */
  private table: Int32Array;
  /** The table slot of each ring position's identity, moved along with it. */
  private slots: Int32Array;
  private mask: number;
  private count = 0;
  /** Where the next identity goes in the ring (once full, that is the oldest). */
  private next = 0;

  constructor(capacity = MIN_IDS) {
    this.ring = new Int32Array(capacity * 2);
    this.table = new Int32Array(capacity * 2);
    this.slots = new Int32Array(capacity);
    this.mask = capacity * 2 - 1;
  }

  get capacity(): number {
    return this.slots.length;
  }

  get size(): number {
    return this.count;
  }

  has(hi: number, lo: number): boolean {
    return this.find(hi | 0, lo | 0) >= 0;
  }

  /**
   * Adds an identity not yet present. When the ring is full it grows if `mayGrow(extra)` allows the
   * extra room, otherwise the oldest identity is forgotten.
   */
  add(hi: number, lo: number, mayGrow: (extra: number) => boolean = () => false): void {
    hi |= 0;
    lo |= 0;
    const capacity = this.capacity;
    if (this.count === capacity) {
      if (capacity < MAX_IDS_PER_SESSION && mayGrow(capacity)) this.grow();
      else this.forget(this.next);
    }
    const position = this.next;
    this.ring[position * 2] = hi;
    this.ring[position * 2 + 1] = lo;
    let slot = this.slotOf(hi, lo);
    while (this.table[slot] !== 0) slot = (slot + 1) & this.mask;
    this.table[slot] = position + 1;
    this.slots[position] = slot;
    this.count++;
    this.next = position + 1 === this.capacity ? 0 : position + 1;
  }

  private slotOf(hi: number, lo: number): number {
    // The halves are a keyed hash's output, uniformly spread already; the mix only guards against a lazy caller.
    return Math.imul(hi ^ lo, 0x9e3779b1) & this.mask;
  }

  /** The table slot holding the identity, or -1. */
  private find(hi: number, lo: number): number {
    const { table, ring, mask } = this;
    let slot = this.slotOf(hi, lo);
    for (;;) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const at = (entry - 1) * 2;
      if (ring[at] === hi && ring[at + 1] === lo) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** Forgets the identity at a ring position; backward-shift deletion keeps probe runs intact. */
  private forget(position: number): void {
    const { table, ring, slots, mask } = this;
    let slot = slots[position]!;
    this.count--;
    for (;;) {
      table[slot] = 0;
      let next = slot;
      for (;;) {
        next = (next + 1) & mask;
        const entry = table[next]!;
        if (entry === 0) return;
        const at = (entry - 1) * 2;
        const home = this.slotOf(ring[at]!, ring[at + 1]!);
        // Move the entry back unless its home lies cyclically in (slot, next].
        const stays = slot <= next ? slot < home && home <= next : slot < home || home <= next;
        if (!stays) {
          table[slot] = entry;
          slots[entry - 1] = slot;
          slot = next;
          break;
        }
      }
    }
  }

  /** Doubles the room; the ring is full, so its oldest entry is at `next`. */
  private grow(): void {
    const old = this.ring;
    const capacity = this.capacity;
    const oldest = this.next;
    this.ring = new Int32Array(capacity * 4);
    this.table = new Int32Array(capacity * 4);
    this.slots = new Int32Array(capacity * 2);
    this.mask = capacity * 4 - 1;
    this.count = 0;
    this.next = 0;
    // Oldest first, so the ring keeps its order.
    for (let i = 0; i < capacity; i++) {
      const at = ((oldest + i) % capacity) * 2;
      this.add(old[at]!, old[at + 1]!);
    }
  }
}

/** A session's replay memory and its rate limit. */
export class SessionGuard {
  readonly ids = new RecentIds();
  private readonly bucket: TokenBucket;

  constructor(perSecond: number, burst: number, now: number) {
    this.bucket = new TokenBucket(perSecond, burst, now);
  }

  take(now: number): boolean {
    return this.bucket.take(now);
  }
}

export interface SessionGuardOptions {
  /** Datagrams a second a session may send on average (0: no limit)… */
  perSecond: number;
  /** …and at once. */
  burst: number;
  /** Sessions remembered at most; the least recently active goes first. */
  maxSessions: number;
  /** Identities remembered across all sessions at most: beyond, sessions stop growing their memory. */
  maxIds: number;
}

/** The guards of the sessions seen lately, least recently active first. */
export class SessionGuards {
  private readonly guards = new Map<string, SessionGuard>();
  private last: { sessionId: string; guard: SessionGuard } | undefined;
  /** Room for identities across all guards. */
  private room = 0;
  private readonly mayGrow = (extra: number) => {
    if (this.room + extra > this.options.maxIds) return false;
    this.room += extra;
    return true;
  };

  constructor(private readonly options: SessionGuardOptions) {}

  /** Whether the session has sent this datagram lately (by the two halves of its identity). */
  seen(guard: SessionGuard, hi: number, lo: number): boolean {
    return guard.ids.has(hi, lo);
  }

  remember(guard: SessionGuard, hi: number, lo: number): void {
    guard.ids.add(hi, lo, this.mayGrow);
  }

  get(sessionId: string, now: number): SessionGuard {
    // Floods come from one session at a time: the last guard needs no map work.
    if (this.last?.sessionId === sessionId) return this.last.guard;
    let guard = this.guards.get(sessionId);
    if (guard) {
      // Re-inserting keeps the sessions flying now last to go.
      this.guards.delete(sessionId);
    } else {
      guard = new SessionGuard(this.options.perSecond, this.options.burst, now);
      this.room += guard.ids.capacity;
      if (this.guards.size >= this.options.maxSessions) {
        const [oldestId, oldest] = this.guards.entries().next().value!;
        this.guards.delete(oldestId);
        this.room -= oldest.ids.capacity;
      }
    }
    this.guards.set(sessionId, guard);
    this.last = { sessionId, guard };
    return guard;
  }

  get size(): number {
    return this.guards.size;
  }

  /** Identities remembered across all sessions. */
  get ids(): number {
    let total = 0;
    for (const guard of this.guards.values()) total += guard.ids.size;
    return total;
  }
}
