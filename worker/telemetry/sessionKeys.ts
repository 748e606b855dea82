import { fromBase64, toBase64 } from "../lib/hash";

/**
 * Session keys: 32 random bytes per start-comm, returned once to the pilot and kept in D1 only sealed
 * with AES-GCM under TELEMETRY_MASTER_KEY, bound to the session id so a sealed key cannot be moved.
 */

const IV_BYTES = 12;
const encoder = new TextEncoder();
// Imported once per isolate and master key.
const masterKeys = new Map<string, Promise<CryptoKey>>();

export function newSessionKey(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(32));
}

export async function sealKey(
  masterKey: string | undefined,
  sessionId: string,
  key: Uint8Array<ArrayBuffer>,
) {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(sessionId) },
    await importMasterKey(masterKey),
    key,
  );
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return toBase64(out);
}

export async function unsealKey(masterKey: string | undefined, sessionId: string, sealed: string) {
  const bytes = fromBase64(sealed);
  const key = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: encoder.encode(sessionId) },
    await importMasterKey(masterKey),
    bytes.subarray(IV_BYTES),
  );
  return new Uint8Array(key);
}

function importMasterKey(masterKey: string | undefined): Promise<CryptoKey> {
  if (!masterKey)
    throw new Error("TELEMETRY_MASTER_KEY is not set: `wrangler secret put TELEMETRY_MASTER_KEY`");
  let key = masterKeys.get(masterKey);
  if (!key) {
    const raw = fromBase64(masterKey);
    if (raw.length !== 32) throw new Error("TELEMETRY_MASTER_KEY must be base64 of 32 bytes");
    key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    masterKeys.set(masterKey, key);
  }
  return key;
}
