import { describe, expect, it } from "vitest";
import { FREE_REFUSALS, MAX_HELD, REFUSAL_HOLD_MS, Tarpit } from "../../worker/middleware/tarpit";

/** A tarpit whose waits are recorded and end only when released. */
function recordingTarpit() {
  const waits: number[] = [];
  const releases: (() => void)[] = [];
  const tarpit = new Tarpit((ms) => {
    waits.push(ms);
    return new Promise((resolve) => releases.push(resolve));
  });
  const releaseAll = () => {
    for (const release of releases.splice(0)) release();
  };
  return { tarpit, waits, releaseAll };
}

describe("the tarpit", () => {
  it("answers the first FREE_REFUSALS refusals in a row at once and holds the ones after", async () => {
    const { tarpit, waits, releaseAll } = recordingTarpit();
    for (let i = 0; i < FREE_REFUSALS; i++) await tarpit.hold(tarpit.refuse("address a", new Error("429")));
    expect(waits).toEqual([]);
    const held = tarpit.hold(tarpit.refuse("address a", new Error("429")));
    expect(waits).toEqual([REFUSAL_HOLD_MS]);
    expect(tarpit.holding).toBe(1);
    releaseAll();
    await held;
    expect(tarpit.holding).toBe(0);
  });

  it("starts counting again once the caller is let through, and counts each caller alone", async () => {
    const { tarpit, waits } = recordingTarpit();
    for (let i = 0; i < FREE_REFUSALS; i++) tarpit.refuse("ticket t", new Error("429"));
    tarpit.allowed("ticket t");
    await tarpit.hold(tarpit.refuse("ticket t", new Error("429")));
    await tarpit.hold(tarpit.refuse("ticket u", new Error("429")));
    expect(waits).toEqual([]);
  });

  it("holds nothing but its own refusals, and at most MAX_HELD at once", async () => {
    const { tarpit, waits, releaseAll } = recordingTarpit();
    await tarpit.hold(new Error("another error"));
    await tarpit.hold(undefined);
    for (let i = 0; i < FREE_REFUSALS; i++) tarpit.refuse("key k", new Error("429"));
    const holds = Array.from({ length: MAX_HELD + 5 }, () =>
      tarpit.hold(tarpit.refuse("key k", new Error("429"))),
    );
    expect(waits.length).toBe(MAX_HELD);
    expect(tarpit.holding).toBe(MAX_HELD);
    releaseAll();
    await Promise.all(holds);
    expect(tarpit.holding).toBe(0);
  });
});
