/**
 * A page's inline scripts are allowed by their hashes (Content-Security-Policy `'sha256-…'`), never by
 * 'unsafe-inline': each hash is computed once per isolate from the script's own source text, so an
 * edit to a script changes its hash with it, and markup injected into a page runs nowhere.
 */
const hashes = new Map<string, Promise<string>>();

/** `'sha256-<base64>'` of one inline script's text, as it stands between its tags. */
export function scriptHashSource(script: string): Promise<string> {
  let hash = hashes.get(script);
  if (!hash) {
    hash = crypto.subtle
      .digest("SHA-256", new TextEncoder().encode(script))
      .then((digest) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    hashes.set(script, hash);
  }
  return hash;
}
