import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  deliveryBody,
  FIRST_RETRY_MS,
  MAX_ATTEMPTS,
  newSecret,
  receiverPauseMs,
  retryDelayMs,
  secretProblem,
  signatureHeader,
  verifySignature,
} from "../../worker/domain/webhooks";

describe("secrets", () => {
  it("generates distinct 32-byte secrets that pass the checks", () => {
    const a = newSecret();
    expect(a).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(newSecret()).not.toBe(a);
    expect(secretProblem(a)).toBeNull();
  });

  it("refuses short, long and non-printable secrets", () => {
    expect(secretProblem("short")).toMatch(/at least 16/);
    expect(secretProblem("x".repeat(257))).toMatch(/at most 256/);
    expect(secretProblem("with a space in it!!")).toMatch(/printable/);
  });
});

describe("signature", () => {
  const secret = "whsec_test_secret_0123456789";
  const body = '{"flight_id":"flight|1","event":{"type":"left_area"}}';

  it("is the hex HMAC-SHA256 of `<t>.<body>`, as Node's crypto computes it", async () => {
    const header = await signatureHeader(secret, body, 1_800_000_000);
    const expected = createHmac("sha256", secret).update(`1800000000.${body}`).digest("hex");
    expect(header).toBe(`t=1800000000,v1=${expected}`);
  });

  it("verifies within the tolerance and refuses tampering, other secrets and old timestamps", async () => {
    const header = await signatureHeader(secret, body, 1_800_000_000);
    expect(await verifySignature(secret, body, header, 1_800_000_100)).toBe(true);
    expect(await verifySignature(secret, `${body} `, header, 1_800_000_100)).toBe(false);
    expect(await verifySignature("whsec_other_secret_012345", body, header, 1_800_000_100)).toBe(false);
    expect(await verifySignature(secret, body, header, 1_800_000_301)).toBe(false);
    expect(await verifySignature(secret, body, "t=abc,v1=00", 1_800_000_000)).toBe(false);
    expect(await verifySignature(secret, body, "t=1800000000", 1_800_000_000)).toBe(false);
    // A second v1 (rotation) is accepted when one matches.
    expect(await verifySignature(secret, body, `${header},v1=deadbeef`, 1_800_000_000)).toBe(true);
  });
});

describe("retryDelayMs", () => {
  it("doubles from 30 s and stops after the last attempt, about an hour in all", () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelayMs(i + 1));
    expect(delays.slice(0, -1)).toEqual([1, 2, 4, 8, 16, 32, 64].map((k) => k * FIRST_RETRY_MS));
    expect(delays.at(-1)).toBeNull();
    const total = delays.reduce<number>((sum, d) => sum + (d ?? 0), 0);
    expect(total).toBeGreaterThan(55 * 60_000);
    expect(total).toBeLessThan(70 * 60_000);
  });
});

describe("bounded fan-out", () => {
  it("pauses a failing receiver 30 s, doubling up to 32 min", () => {
    expect([1, 2, 3, 6, 7, 8, 20].map(receiverPauseMs)).toEqual(
      [0.5, 1, 2, 16, 32, 32, 32].map((min) => min * 60_000),
    );
  });

  it("carries a flight's coalesced events, oldest first, as they were kept", () => {
    const body = deliveryBody("flight|x", [
      '{"type":"left_area","at":"a"}',
      '{"type":"back_in_conformance"}',
    ]);
    expect(JSON.parse(body)).toEqual({
      flight_id: "flight|x",
      events: [{ type: "left_area", at: "a" }, { type: "back_in_conformance" }],
    });
  });
});
