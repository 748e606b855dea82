import { describe, expect, it } from "vitest";
import { REPLAY_WINDOW, ReplayWindow } from "../../relay/replayWindow";

describe("ReplayWindow", () => {
  it("accepts each serial once, in any order inside the window", () => {
    const window = new ReplayWindow();
    for (const serial of [1, 3, 2, 5, 4]) expect(window.check(serial)).toBe("fresh");
    for (const serial of [1, 2, 3, 4, 5]) expect(window.check(serial)).toBe("replayed");
  });

  it(`is at least 1024 wide (${REPLAY_WINDOW}) and refuses what falls behind it`, () => {
    expect(REPLAY_WINDOW).toBeGreaterThanOrEqual(1024);
    const window = new ReplayWindow();
    expect(window.check(1)).toBe("fresh");
    expect(window.check(REPLAY_WINDOW)).toBe("fresh");
    expect(window.check(2)).toBe("fresh");
    expect(window.check(REPLAY_WINDOW + 1)).toBe("fresh");
    expect(window.check(1)).toBe("too_old");
    expect(window.check(2)).toBe("replayed");
  });

  it("forgets slots it slides over, also after a jump longer than the window", () => {
    const window = new ReplayWindow();
    expect(window.check(10)).toBe("fresh");
    expect(window.check(10 + REPLAY_WINDOW / 2)).toBe("fresh");
    // Slides by half a window: serial 10's slot now belongs to 10 + REPLAY_WINDOW.
    expect(window.check(10 + REPLAY_WINDOW)).toBe("fresh");
    expect(window.check(10 + REPLAY_WINDOW)).toBe("replayed");
    expect(window.check(10 + REPLAY_WINDOW / 2)).toBe("replayed");
    expect(window.check(10)).toBe("too_old");
    expect(window.check(10 + 5 * REPLAY_WINDOW)).toBe("fresh");
    expect(window.check(10 + 4 * REPLAY_WINDOW + REPLAY_WINDOW / 2)).toBe("fresh");
    expect(window.check(10 + 4 * REPLAY_WINDOW)).toBe("too_old");
  });

  it("handles serial 0 and the uint32 maximum", () => {
    const window = new ReplayWindow();
    expect(window.check(0)).toBe("fresh");
    expect(window.check(0)).toBe("replayed");
    expect(window.check(0xffffffff)).toBe("fresh");
    expect(window.check(0xffffffff - 1)).toBe("fresh");
    expect(window.check(0xffffffff)).toBe("replayed");
    expect(window.check(0)).toBe("too_old");
  });
});
