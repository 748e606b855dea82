/**
 * Password guessing at the SDK login routes (issue #37): failed sign-ins are counted per user name
 * (within one application) and per client address, and past a few free failures each further attempt
 * waits a back-off that doubles with every failure. The same rules hold for every name, whether or not
 * the provider knows it, so a refusal says nothing about which users exist. Pure: the clock is passed in.
 */

/** Failures of one user name before its back-off starts: a pilot who mistypes a few times never waits. */
export const FREE_FAILURES_PER_USER = 5;
/** Failures from one address before its back-off starts (an office behind one address, several pilots). */
export const FREE_FAILURES_PER_ADDRESS = 20;
/** The first wait, doubled with each further failure… */
export const FIRST_BACKOFF_MS = 1_000;
/** …up to this. */
export const MAX_BACKOFF_MS = 15 * 60_000;
/** A name or address with no failure for this long starts afresh. */
export const FAILURE_MEMORY_MS = 60 * 60_000;
const MAX_TRACKED = 50_000;

interface Failures {
  count: number;
  lastAt: number;
}

/** The wait after `count` failures, of which `free` cost nothing. */
export function backoffMs(count: number, free: number): number {
  if (count < free) return 0;
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(30, count - free));
}

export interface LoginKeys {
  /** The user name within its application; absent for a refresh, which names no user. */
  user?: string;
  address: string;
}

/**
 * Each attempt counts as a failure from the moment it is let through, so that concurrent guesses see
 * each other; a success or an attempt the provider never judged gives its count back.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();

  /** Milliseconds the caller must wait (nothing counted), or 0: the attempt may go to the provider. */
  begin(keys: LoginKeys, now: number): number {
    const wait = Math.max(...this.keysOf(keys).map(([key, free]) => this.waitOf(key, free, now)));
    if (wait > 0) return wait;
    for (const [key] of this.keysOf(keys)) {
      const previous = this.current(key, now);
      this.failures.delete(key);
      this.failures.set(key, { count: (previous?.count ?? 0) + 1, lastAt: now });
    }
    // Least recent first in insertion order: dropped first when too many are tracked.
    while (this.failures.size > MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
    return 0;
  }

  /**
   * The provider accepted the credentials: the user name starts afresh; the address gets this attempt
   * back but keeps its other failures (one right password among many guesses lifts nothing).
   */
  succeeded(keys: LoginKeys): void {
    if (keys.user !== undefined) this.failures.delete(`user ${keys.user}`);
    this.giveBack(`address ${keys.address}`);
  }

  /** The provider could not judge the attempt (unreachable, misconfigured): it counts for nobody. */
  unjudged(keys: LoginKeys): void {
    for (const [key] of this.keysOf(keys)) this.giveBack(key);
  }

  private giveBack(key: string): void {
    const entry = this.failures.get(key);
    if (!entry) return;
    if (entry.count <= 1) this.failures.delete(key);
    else entry.count -= 1;
  }

  private keysOf(keys: LoginKeys): [string, number][] {
    const all: [string, number][] = [[`address ${keys.address}`, FREE_FAILURES_PER_ADDRESS]];
    if (keys.user !== undefined) all.push([`user ${keys.user}`, FREE_FAILURES_PER_USER]);
    return all;
  }

  private current(key: string, now: number): Failures | undefined {
    const entry = this.failures.get(key);
    if (entry && now - entry.lastAt > FAILURE_MEMORY_MS) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  private waitOf(key: string, free: number, now: number): number {
    const entry = this.current(key, now);
    if (!entry) return 0;
    return Math.max(0, entry.lastAt + backoffMs(entry.count, free) - now);
  }
}
