import type { VerificationChannel } from "../../schema";
import { sha256Hex } from "../lib/hash";

/** A code is valid this long after it is sent. */
export const CODE_LIFETIME_MS = 10 * 60_000;
/** At most this many codes per pilot and channel within SEND_WINDOW_MS. */
export const MAX_SENDS_PER_WINDOW = 5;
export const SEND_WINDOW_MS = 60 * 60_000;

const CODE_SPACE = 1_000_000;
// The largest multiple of CODE_SPACE below 2^32: drawing under it keeps every code equally likely.
const UNBIASED_LIMIT = Math.floor(2 ** 32 / CODE_SPACE) * CODE_SPACE;

/** A uniformly random 6-digit code, leading zeros kept. */
export function newVerificationCode(): string {
  const draw = new Uint32Array(1);
  do crypto.getRandomValues(draw);
  while (draw[0]! >= UNBIASED_LIMIT);
  return String(draw[0]! % CODE_SPACE).padStart(6, "0");
}

/**
 * The code as clients send it: a 6-digit string, or a number (the iOS SDK sends `Int(token)`,
 * which drops leading zeros, so numbers are padded back). Undefined when it cannot be a code.
 */
export function parseVerificationCode(value: string | number): string | undefined {
  if (typeof value === "number") {
    return Number.isInteger(value) && value >= 0 && value < CODE_SPACE
      ? String(value).padStart(6, "0")
      : undefined;
  }
  const trimmed = value.trim();
  return /^\d{6}$/.test(trimmed) ? trimmed : undefined;
}

/**
 * What is stored instead of the code. It binds the code to the pilot, channel and destination,
 * so a code sent to an old phone number cannot verify a new one.
 */
export function verificationCodeHash(
  pilotId: string,
  channel: VerificationChannel,
  destination: string,
  code: string,
): Promise<string> {
  return sha256Hex(`${pilotId}\u0000${channel}\u0000${destination}\u0000${code}`);
}

/** Seconds until a send is allowed again, given the oldest send still inside the window. */
export function sendRetryAfterSeconds(oldestSendAt: number, now: number): number {
  return Math.max(1, Math.ceil((oldestSendAt + SEND_WINDOW_MS - now) / 1000));
}

/** The message body every provider sends. */
export function verificationMessage(code: string): string {
  return `Your Windsock verification code is ${code}. It expires in ${CODE_LIFETIME_MS / 60_000} minutes.`;
}
