import { badRequest } from "./errors";
import { base64url, fromBase64url } from "./hash";

/** Opaque paging cursors: the keyset position of a page's last item, as base64url JSON. */
export function encodeCursor(position: (number | string)[]): string {
  return base64url(new TextEncoder().encode(JSON.stringify(position)));
}

/** The position a cursor of this listing holds; anything else is a 400 naming `cursor`. */
export function decodeCursor<T>(cursor: string, read: (position: unknown[]) => T | undefined): T {
  let position: unknown;
  try {
    position = JSON.parse(new TextDecoder().decode(fromBase64url(cursor)));
  } catch {
    position = undefined;
  }
  const decoded = Array.isArray(position) ? read(position) : undefined;
  if (decoded === undefined)
    throw badRequest("cursor", "not a cursor of this listing; pass paging.next unchanged");
  return decoded;
}
