import { toHex } from "../lib/hash";

/**
 * Conformance webhooks, the pure parts: the Stripe-style signature (`Windsock-Signature: t=<unix
 * seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) and the retry schedule. Which URLs may receive
 * them: domain/outboundUrl.ts.
 */

export const SIGNATURE_HEADER = "Windsock-Signature";
export const EVENT_ID_HEADER = "Windsock-Event-Id";
/** Attempts before a delivery is given up: the first at once, then after 30 s, 1, 2, 4, 8, 16, 32 min (~64 min in all). */
export const MAX_ATTEMPTS = 8;
export const FIRST_RETRY_MS = 30_000;
/**
 * Coalescing: a delivery carries every event of its flight raised within this window of its first
 * (up to MAX_EVENTS_PER_DELIVERY), so one flight makes at most one POST per window.
 */
export const COALESCE_MS = 5_000;
export const MAX_EVENTS_PER_DELIVERY = 50;
/** Deliveries of one flight waiting at once; events beyond are left out (GET …/conformance lists them). */
export const MAX_WAITING_DELIVERIES = 10;
/** A failing receiver's pause after its Nth consecutive failure, across all the account's flights. */
const MAX_RECEIVER_PAUSE_MS = 32 * 60_000;
/** Each attempt is abandoned after this long and counted as failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A receiver should refuse signatures older than this (replays). */
export const SIGNATURE_TOLERANCE_S = 300;
/** Why a chosen signing secret is unusable, or null. */
export function secretProblem(secret: string): string | null {
  if (secret.length < 16) return "must be at least 16 characters";
  if (secret.length > 256) return "must be at most 256 characters";
  if (!/^[\x21-\x7e]+$/.test(secret)) return "must be printable ASCII without spaces";
  return null;
}

/** A fresh signing secret: `whsec_` and 32 random bytes in hex. */
export function newSecret(): string {
  return `whsec_${toHex(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/**
 * Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed, or null when
 * `attempt` was the last: 30 s, 1, 2, 4, 8, 16, 32 min.
 */
export function retryDelayMs(attempt: number): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  return FIRST_RETRY_MS * 2 ** (attempt - 1);
}

/** No attempt against a receiver within this long of its `failures`th consecutive failure: 30 s doubling to 32 min. */
export function receiverPauseMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RECEIVER_PAUSE_MS);
}

/** A delivery's body: the flight and its coalesced events, oldest first. */
export function deliveryBody(flightId: string, events: readonly string[]): string {
  return `{"flight_id":${JSON.stringify(flightId)},"events":[${events.join(",")}]}`;
}

/** Whether a receiver's answer counts as delivered. */
export const delivered = (status: number) => status >= 200 && status < 300;

async function hmacHex(secret: string, message: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message))));
}

/** The `Windsock-Signature` value for `body` sent at `unixSeconds`. */
export async function signatureHeader(secret: string, body: string, unixSeconds: number): Promise<string> {
  return `t=${unixSeconds},v1=${await hmacHex(secret, `${unixSeconds}.${body}`)}`;
}

/**
 * What a receiver does (and the tests check): the header parses, one `v1` matches the body's HMAC, and
 * `t` is within the tolerance of now. Several `v1` are accepted (a future secret rotation signs twice).
 */
export async function verifySignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_S,
): Promise<boolean> {
  const parts = header.split(",").map((p) => p.trim().split("="));
  const t = parts.find(([k]) => k === "t")?.[1];
  const signatures = parts.filter(([k]) => k === "v1").map(([, v]) => v ?? "");
  if (!t || !/^\d+$/.test(t) || signatures.length === 0) return false;
  if (Math.abs(nowSeconds - Number(t)) > toleranceSeconds) return false;
  const expected = await hmacHex(secret, `${t}.${body}`);
  return signatures.some((s) => constantTimeEqual(s, expected));
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
