import { describe, expect, it } from "vitest";
import { Admission, type Verdict } from "../../../relay/traffic/admission";

const allowed: Verdict = {
  allowed: true,
  client: { flight_id: "f", pilot_id: "p", ends_at: 2e12, token_expires_at: 2e12 },
};

describe("admission of MQTT clients", () => {
  it("asks the worker once for concurrent CONNECTs and trusts the answer for its TTL", async () => {
    let clock = 0;
    let asked = 0;
    const admission = new Admission(
      async () => {
        asked++;
        return allowed;
      },
      { ttlMs: 5000, maxPending: 4, now: () => clock },
    );
    await Promise.all([admission.check("f", "t"), admission.check("f", "t")]);
    await admission.check("f", "t");
    expect(asked).toBe(1);
    clock += 5000;
    await admission.check("f", "t");
    expect(asked).toBe(2);
    // Another token is another question.
    await admission.check("f", "other");
    expect(asked).toBe(3);
  });

  it("does not remember a worker it could not reach", async () => {
    let calls = 0;
    const admission = new Admission(
      async () => {
        calls++;
        if (calls === 1) throw new Error("connection refused");
        return { allowed: false, reason: "The flight has ended" };
      },
      { ttlMs: 5000, maxPending: 4, now: () => 0 },
    );
    expect(await admission.check("f", "t")).toEqual({ unavailable: "connection refused" });
    expect(await admission.check("f", "t")).toEqual({ allowed: false, reason: "The flight has ended" });
    expect(await admission.check("f", "t")).toEqual({ allowed: false, reason: "The flight has ended" });
    expect(calls).toBe(2);
  });

  it("asks at most maxPending at once and turns a flood beyond ten times that away", async () => {
    let running = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const admission = new Admission(
      () => {
        running++;
        most = Math.max(most, running);
        return new Promise<Verdict>((resolve) =>
          release.push(() => {
            running--;
            resolve({ allowed: false, reason: "Invalid token" });
          }),
        );
      },
      { ttlMs: 5000, maxPending: 2, now: () => 0 },
    );
    const answers = Array.from({ length: 30 }, (_, i) => admission.check(`f${i}`, "t"));
    const turnedAway = await Promise.race([
      answers[29]!,
      new Promise((r) => setTimeout(() => r("waiting"), 50)),
    ]);
    expect(turnedAway).toEqual({ unavailable: expect.stringContaining("too many") });
    while (release.length > 0 || admission.pending > 0) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 1));
    }
    const verdicts = await Promise.all(answers);
    expect(most).toBe(2);
    expect(verdicts.filter((v) => "allowed" in v)).toHaveLength(22);
  });
});
