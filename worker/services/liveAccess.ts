import { and, eq, isNull } from "drizzle-orm";
import { apiKeys } from "../../schema";
import { FIRST_PARTY_PUBLIC_ID } from "../domain/deeplink/firstParty";
import type { Db } from "../env";
import { TtlCache } from "../lib/ttlCache";
import { findLinkAccount } from "../store/callbacks";
import { findFirstPartyAccount } from "../store/firstPartyAccount";

/**
 * Revocation and expiry reach live access (issue #25): tickets and open streams are bound to the
 * API key that opened them (and the pilot token's expiry). A revoked key stops them within
 * LIVE_REVOCATION_MS: a stream checks its key every LIVE_CHECK_MS, and an isolate trusts a key's
 * state for at most KEY_STATE_CACHE_MS, so the two add up to less than the documented 10 s.
 */
export const LIVE_REVOCATION_MS = 10_000;
export const LIVE_CHECK_MS = 5_000;
const KEY_STATE_CACHE_MS = 4_000;

const keyStates = new TtlCache<boolean>(10_000);

const PAGE_KEY = "page|";

/**
 * The deep-link page calls the API in its application's name without a key of its own: this id
 * stands for it, and what it opened lives as long as the application does (its links likewise).
 */
export const pageKeyId = (publicId: string) => `${PAGE_KEY}${publicId}`;

/** Whether the key (by id) is stored and not revoked; read from D1 at most every 4 s per isolate. */
export async function keyStillLive(db: Db, keyId: string): Promise<boolean> {
  const cached = keyStates.get(keyId);
  if (cached !== undefined) return cached;
  const live = keyId.startsWith(PAGE_KEY)
    ? await applicationLive(db, keyId.slice(PAGE_KEY.length))
    : (await db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
        .get()) !== undefined;
  keyStates.set(keyId, live, KEY_STATE_CACHE_MS);
  return live;
}

/** The service's own application always; a partner's while one of its keys is live. */
async function applicationLive(db: Db, publicId: string): Promise<boolean> {
  const account =
    publicId === FIRST_PARTY_PUBLIC_ID
      ? await findFirstPartyAccount(db)
      : await findLinkAccount(db, publicId);
  return account !== null;
}

/** The isolate that revokes a key stops its tickets and streams at their next check. */
export function forgetKeyState(keyId: string): void {
  keyStates.delete(keyId);
}

export interface StreamBinding {
  db: Db;
  keyId: string;
  /** The pilot token's expiry (UNIX seconds); absent for a stream opened without one. */
  tokenExpiresAt?: number;
}

const encoder = new TextEncoder();

/**
 * The watcher's byte stream, passed through while its key is live and its token unexpired; then an
 * `access_ended` event saying why, and the end (an EventSource that reconnects is refused).
 */
export function boundStream(
  source: ReadableStream<Uint8Array>,
  binding: StreamBinding,
): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setInterval> | undefined;
  let expiry: ReturnType<typeof setTimeout> | undefined;
  const stopTimers = () => {
    clearInterval(timer);
    clearTimeout(expiry);
  };
  // A pipe, not a reader pumped by hand: a reader that goes away cancels the pipe, and the pipe
  // cancels the flight's own stream at once, freeing its place among the flight's streams.
  const stop = new AbortController();
  let control: TransformStreamDefaultController<Uint8Array> | undefined;
  const bound = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      control = controller;
    },
    flush: stopTimers,
  });
  const end = (reason: string) => {
    if (stop.signal.aborted) return;
    stopTimers();
    try {
      control?.enqueue(encoder.encode(`event: access_ended\ndata: ${JSON.stringify({ reason })}\n\n`));
      control?.terminate();
    } catch {
      // the reader has already gone
    }
    stop.abort(reason);
  };
  timer = setInterval(() => {
    keyStillLive(binding.db, binding.keyId).then(
      (live) => {
        if (!live) end("the API key was revoked");
      },
      () => {},
    );
  }, LIVE_CHECK_MS);
  if (binding.tokenExpiresAt !== undefined) {
    const wait = Math.max(0, binding.tokenExpiresAt * 1000 - Date.now());
    expiry = setTimeout(() => end("the pilot token expired: sign in again"), wait);
  }
  source.pipeTo(bound.writable, { signal: stop.signal }).catch(stopTimers);
  return bound.readable;
}
