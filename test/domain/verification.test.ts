import { describe, expect, it } from "vitest";
import {
  newVerificationCode,
  parseVerificationCode,
  SEND_WINDOW_MS,
  sendRetryAfterSeconds,
  verificationCodeHash,
  verificationMessage,
} from "../../worker/domain/verification";

describe("verification codes", () => {
  it("are six digits, leading zeros kept, and spread over the whole range", () => {
    const codes = Array.from({ length: 2000 }, newVerificationCode);
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1990);
    // Uniform: about a tenth start with each digit (0 included, so zero padding happens).
    const leadingZeros = codes.filter((c) => c.startsWith("0")).length;
    expect(leadingZeros).toBeGreaterThan(120);
    expect(leadingZeros).toBeLessThan(280);
  });

  it("parse from strings and from numbers, padding numbers that lost leading zeros", () => {
    expect(parseVerificationCode("012345")).toBe("012345");
    expect(parseVerificationCode(" 654321 ")).toBe("654321");
    expect(parseVerificationCode(12345)).toBe("012345");
    expect(parseVerificationCode(0)).toBe("000000");
    expect(parseVerificationCode(999999)).toBe("999999");
  });

  it("refuse anything that cannot be a code", () => {
    for (const value of ["12345", "1234567", "12a456", "", "１２３４５６", 1_000_000, -1, 12.5, Number.NaN])
      expect(parseVerificationCode(value), String(value)).toBeUndefined();
  });

  it("hash to a value bound to pilot, channel, destination and code", async () => {
    const base = await verificationCodeHash("pilot|a", "phone", "+13105551212", "123456");
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(base).not.toContain("123456");
    expect(await verificationCodeHash("pilot|a", "phone", "+13105551212", "123456")).toBe(base);
    for (const other of [
      await verificationCodeHash("pilot|b", "phone", "+13105551212", "123456"),
      await verificationCodeHash("pilot|a", "email", "+13105551212", "123456"),
      await verificationCodeHash("pilot|a", "phone", "+13105550000", "123456"),
      await verificationCodeHash("pilot|a", "phone", "+13105551212", "123457"),
    ])
      expect(other).not.toBe(base);
  });

  it("tell how long until the oldest send leaves the window", () => {
    const now = 10_000_000;
    expect(sendRetryAfterSeconds(now - 1000, now)).toBe(SEND_WINDOW_MS / 1000 - 1);
    expect(sendRetryAfterSeconds(now - SEND_WINDOW_MS + 1, now)).toBe(1);
  });

  it("go out in a message that carries the code and its lifetime", () => {
    expect(verificationMessage("042042")).toBe(
      "Your Windsock verification code is 042042. It expires in 10 minutes.",
    );
  });
});
