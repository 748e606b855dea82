import { describe, expect, it } from "vitest";
import {
  backoffMs,
  FIRST_BACKOFF_MS,
  FREE_FAILURES_PER_ADDRESS,
  FREE_FAILURES_PER_USER,
  LoginThrottle,
  MAX_BACKOFF_MS,
} from "../../worker/domain/loginThrottle";

/** The attack of issue #37 item 5: 1,800 wrong passwords in 61 s had all reached the provider. */
describe("LoginThrottle", () => {
  it("lets few of 1,800 guesses in 61 s reach the provider, for one user from one address", () => {
    const throttle = new LoginThrottle();
    const keys = { user: "app\u0000pilot", address: "203.0.113.1" };
    let forwarded = 0;
    for (let i = 0; i < 1_800; i++) {
      const now = Math.floor((i * 61_000) / 1_800);
      if (throttle.begin(keys, now) === 0) forwarded++;
    }
    // 5 free, then waits of 1, 2, 4, 8, 16 s (31 s) fit in the minute; 32 s more do not.
    expect(forwarded).toBe(FREE_FAILURES_PER_USER + 5);
  });

  it("the same guesses spread over 1,800 addresses still meet the user's back-off", () => {
    const throttle = new LoginThrottle();
    let forwarded = 0;
    for (let i = 0; i < 1_800; i++)
      if (
        throttle.begin({ user: "app\u0000pilot", address: `a${i}` }, Math.floor((i * 61_000) / 1_800)) === 0
      )
        forwarded++;
    expect(forwarded).toBe(FREE_FAILURES_PER_USER + 5);
  });

  it("one address spraying 1,800 names meets the address's back-off", () => {
    const throttle = new LoginThrottle();
    let forwarded = 0;
    for (let i = 0; i < 1_800; i++)
      if (throttle.begin({ user: `app\u0000u${i}`, address: "a" }, Math.floor((i * 61_000) / 1_800)) === 0)
        forwarded++;
    expect(forwarded).toBe(FREE_FAILURES_PER_ADDRESS + 5);
  });

  it("a success clears the name, gives the address its attempt back; an unjudged attempt counts for nobody", () => {
    const throttle = new LoginThrottle();
    const keys = { user: "u", address: "a" };
    for (let i = 0; i < FREE_FAILURES_PER_USER - 1; i++) expect(throttle.begin(keys, 0)).toBe(0);
    expect(throttle.begin(keys, 0)).toBe(0);
    throttle.succeeded(keys);
    for (let i = 0; i < FREE_FAILURES_PER_USER; i++) expect(throttle.begin(keys, 0)).toBe(0);
    expect(throttle.begin(keys, 0)).toBe(FIRST_BACKOFF_MS);
    const other = { user: "v", address: "b" };
    for (let i = 0; i < 50; i++) {
      expect(throttle.begin(other, 0)).toBe(0);
      throttle.unjudged(other);
    }
  });

  it("doubles the wait per failure up to its cap", () => {
    expect(backoffMs(FREE_FAILURES_PER_USER - 1, FREE_FAILURES_PER_USER)).toBe(0);
    expect(backoffMs(FREE_FAILURES_PER_USER, FREE_FAILURES_PER_USER)).toBe(FIRST_BACKOFF_MS);
    expect(backoffMs(FREE_FAILURES_PER_USER + 3, FREE_FAILURES_PER_USER)).toBe(8 * FIRST_BACKOFF_MS);
    expect(backoffMs(FREE_FAILURES_PER_USER + 100, FREE_FAILURES_PER_USER)).toBe(MAX_BACKOFF_MS);
  });
});
