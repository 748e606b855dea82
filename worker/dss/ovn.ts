import { createHash } from "node:crypto";
import { formatTime } from "./extents";

/**
 * F3548 opaque version numbers as InterUSS's DSS makes them: from the entity's id and the time of
 * its write (so the same write always has the same OVN, and every write a new one), or the USS's own
 * through InterUSS's OVN-request extension (`{id}_{UUIDv7}`, the UUID's time within 5 minutes of now).
 */

/** The phrase shown instead of an OVN to a USS that does not manage the entity. */
export const NO_OVN_PHRASE = "Available from USS";
const MAX_SUFFIX_SKEW_MS = 5 * 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** SHA-256 of id and time in URL-safe base64 (44 characters, within the standard's 16 to 128). */
export function ovnFromTime(id: string, ms: number): string {
  return createHash("sha256")
    .update(id + formatTime(ms))
    .digest("base64")
    .replaceAll("+", "-")
    .replaceAll("/", ".")
    .replaceAll("=", "_");
}

export class BadOvnSuffix extends Error {}

/** The OVN a USS asked for with `requested_ovn_suffix`, or why it may not have it. */
export function requestedOvn(id: string, suffix: string, nowMs: number): string {
  if (!UUID.test(suffix)) throw new BadOvnSuffix(`requested_ovn_suffix: ${suffix} is not a UUID`);
  if (suffix[14] !== "7") throw new BadOvnSuffix(`requested_ovn_suffix: ${suffix} is not a version 7 UUID`);
  const uuidMs = Number.parseInt(suffix.replaceAll("-", "").slice(0, 12), 16);
  if (Math.abs(nowMs - uuidMs) > MAX_SUFFIX_SKEW_MS)
    throw new BadOvnSuffix(`requested_ovn_suffix: ${suffix}'s time is more than 5 minutes from now`);
  return `${id}_${suffix}`;
}
