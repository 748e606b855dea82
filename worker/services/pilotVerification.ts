import type { VerificationChannel } from "../../schema";
import { DeliveryFailed, deliveryProvider } from "../delivery";
import {
  CODE_LIFETIME_MS,
  MAX_SENDS_PER_WINDOW,
  newVerificationCode,
  SEND_WINDOW_MS,
  sendRetryAfterSeconds,
  verificationCodeHash,
} from "../domain/verification";
import type { Bindings, Db } from "../env";
import { conflict, notFound, tooManyRequests } from "../lib/errors";
import { timingSafeEqual } from "../lib/hash";
import { findPilot } from "../store/pilots";
import { consumeLatestCode, issueCode, markVerified, voidCode } from "../store/verification";

/**
 * Verifying a pilot's phone or email: a 6-digit code goes to the contact (at most
 * MAX_SENDS_PER_WINDOW an hour), stored only as a hash bound to the contact, and one attempt per
 * code marks the contact verified while it is still the pilot's.
 */

/** Why no code went out, for the route to answer 503 or 502. */
export type SendOutcome = "sent" | "no_provider" | "not_delivered";

/** The phone number or email address codes go to; 404 for an unknown pilot, 409 when the pilot has none. */
async function contactOf(db: Db, accountId: string, pilotId: string, channel: VerificationChannel) {
  const found = await findPilot(db, accountId, pilotId, { statistics: false, now: Date.now() });
  if (!found) throw notFound("Pilot");
  const contact = found.pilot[channel];
  if (!contact) throw conflict(`No ${channel} set: add one with PATCH /pilot/v2/{id} first`);
  return contact;
}

/** Sends a fresh code; 429 over the hourly limit. A code the provider refused is voided at once. */
export async function sendVerificationCode(
  env: Bindings,
  db: Db,
  accountId: string,
  pilotId: string,
  channel: VerificationChannel,
): Promise<SendOutcome> {
  const destination = await contactOf(db, accountId, pilotId, channel);
  const provider = deliveryProvider(env, db, channel);
  if (!provider) return "no_provider";

  const now = Date.now();
  const code = newVerificationCode();
  const outcome = await issueCode(
    db,
    {
      pilotId,
      channel,
      destination,
      codeHash: await verificationCodeHash(pilotId, channel, destination, code),
      expiresAt: now + CODE_LIFETIME_MS,
    },
    { maxSends: MAX_SENDS_PER_WINDOW, windowMs: SEND_WINDOW_MS, now },
  );
  if ("limited" in outcome) {
    throw tooManyRequests(
      `At most ${MAX_SENDS_PER_WINDOW} codes an hour; try again later`,
      sendRetryAfterSeconds(outcome.limited.oldestSendAt, now),
    );
  }
  try {
    await provider.deliver({ pilotId, channel, to: destination, code });
  } catch (error) {
    if (!(error instanceof DeliveryFailed)) throw error;
    await voidCode(db, outcome.issued, Date.now());
    console.error(JSON.stringify({ level: "warn", event: "delivery_failed", channel, error: error.message }));
    return "not_delivered";
  }
  return "sent";
}

/** Whether `code` is the latest one sent, unexpired, to the pilot's current contact; it is used up either way. */
export async function verifyContact(
  db: Db,
  accountId: string,
  pilotId: string,
  channel: VerificationChannel,
  code: string,
): Promise<boolean> {
  const destination = await contactOf(db, accountId, pilotId, channel);
  const now = Date.now();
  const sent = await consumeLatestCode(db, pilotId, channel, now);
  const matches =
    sent !== undefined &&
    sent.expiresAt > now &&
    sent.destination === destination &&
    timingSafeEqual(sent.codeHash, await verificationCodeHash(pilotId, channel, destination, code));
  return matches && (await markVerified(db, pilotId, channel, destination));
}
