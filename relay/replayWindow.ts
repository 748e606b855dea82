/** How far behind the newest serial a datagram may arrive and still be accepted once. */
export const REPLAY_WINDOW = 2048;

export type ReplayVerdict = "fresh" | "replayed" | "too_old";

/**
 * The serials a session has seen, as a sliding bitmap over the newest REPLAY_WINDOW: a serial is
 * accepted once, in any order inside the window; older ones are refused.
 */
export class ReplayWindow {
  private readonly seen = new Uint32Array(REPLAY_WINDOW / 32);
  private newest = -1;

  check(serial: number): ReplayVerdict {
    if (serial > this.newest) {
      this.forget(serial);
      this.newest = serial;
    } else if (serial <= this.newest - REPLAY_WINDOW) {
      return "too_old";
    }
    const slot = serial % REPLAY_WINDOW;
    const word = slot >>> 5;
    const bit = 1 << (slot & 31);
    if (this.seen[word]! & bit) return "replayed";
    this.seen[word]! |= bit;
    return "fresh";
  }

  /** Clears the slots that the window slides over on its way up to `serial`. */
  private forget(serial: number): void {
    if (serial - this.newest >= REPLAY_WINDOW) {
      this.seen.fill(0);
      return;
    }
    for (let s = this.newest + 1; s <= serial; s++) {
      const slot = s % REPLAY_WINDOW;
      this.seen[slot >>> 5]! &= ~(1 << (slot & 31));
    }
  }
}
