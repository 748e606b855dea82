import { base64url, fromBase64, fromBase64url } from "../lib/hash";

/**
 * Short-lived signed tickets that let a browser open a flight's live stream or page without custom
 * headers and without the API key in a URL: `v1.<payload>.<HMAC-SHA256>`, base64url. The HMAC key is
 * derived (HKDF) from TELEMETRY_MASTER_KEY, so a ticket is never a token elsewhere (tokens are ES256).
 */

export const TICKET_LIFETIME_SECONDS = 5 * 60;

export interface Ticket {
  flightId: string;
  accountId: string;
  /** The pilot it was issued to; null when issued for a public flight to someone else. */
  pilotId: string | null;
  /** The API key it was issued with: revoking the key ends the ticket and the streams it opened. */
  keyId: string;
  /**
   * Expiry of a pilot token its streams must end with (UNIX seconds); null: none. Tickets issued now
   * carry none (a link lives its own lifetime); older ones may.
   */
  tokenExpiresAt: number | null;
  /** Expiry, UNIX seconds. */
  exp: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const keys = new Map<string, Promise<CryptoKey>>();

function ticketKey(masterKey: string | undefined): Promise<CryptoKey> {
  if (!masterKey) throw new Error("TELEMETRY_MASTER_KEY is not set: tickets cannot be signed");
  let key = keys.get(masterKey);
  if (!key) {
    key = crypto.subtle.importKey("raw", fromBase64(masterKey), "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(0),
          info: encoder.encode("windsock live ticket v1"),
        },
        base,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign", "verify"],
      ),
    );
    keys.set(masterKey, key);
  }
  return key;
}

export async function issueTicket(masterKey: string | undefined, ticket: Ticket): Promise<string> {
  const payload = base64url(
    encoder.encode(
      JSON.stringify({
        f: ticket.flightId,
        a: ticket.accountId,
        p: ticket.pilotId,
        k: ticket.keyId,
        t: ticket.tokenExpiresAt,
        e: ticket.exp,
      }),
    ),
  );
  const mac = await crypto.subtle.sign("HMAC", await ticketKey(masterKey), encoder.encode(`v1.${payload}`));
  return `v1.${payload}.${base64url(new Uint8Array(mac))}`;
}

/** The ticket's claims when it is ours, intact and unexpired; otherwise why not. */
export async function verifyTicket(
  masterKey: string | undefined,
  text: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<{ ok: true; ticket: Ticket } | { ok: false; reason: string }> {
  const parts = text.split(".");
  if (parts.length !== 3 || parts[0] !== "v1") return { ok: false, reason: "malformed ticket" };
  let mac: Uint8Array<ArrayBuffer>;
  let claims: { f?: unknown; a?: unknown; p?: unknown; k?: unknown; t?: unknown; e?: unknown };
  try {
    mac = fromBase64url(parts[2]!);
    claims = JSON.parse(decoder.decode(fromBase64url(parts[1]!)));
  } catch {
    return { ok: false, reason: "malformed ticket" };
  }
  const valid = await crypto.subtle.verify(
    "HMAC",
    await ticketKey(masterKey),
    mac,
    encoder.encode(`v1.${parts[1]}`),
  );
  if (!valid) return { ok: false, reason: "bad ticket signature" };
  const { f, a, p, k, t, e } = claims;
  if (
    typeof f !== "string" ||
    typeof a !== "string" ||
    typeof k !== "string" ||
    typeof e !== "number" ||
    !(p === null || typeof p === "string") ||
    !(t === null || typeof t === "number")
  )
    return { ok: false, reason: "malformed ticket" };
  if (e <= nowSeconds)
    return { ok: false, reason: "ticket expired: ask POST /flight/v2/{id}/ticket for a new one" };
  return { ok: true, ticket: { flightId: f, accountId: a, pilotId: p, keyId: k, tokenExpiresAt: t, exp: e } };
}
