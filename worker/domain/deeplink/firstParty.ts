/**
 * The service's own first-party application (CONTRACT §12): the account a creation link without
 * `client_id` acts for, as spec 4.7 writes the link. Migration 0008 creates it; it needs no API key,
 * and its callbacks are allowed like any account's (`npm run callbacks -- add <url> --account app_windsock`).
 */
export const FIRST_PARTY_ACCOUNT_ID = "account|windsock";
export const FIRST_PARTY_PUBLIC_ID = "app_windsock";

/** How an operator allows a callback of a link: the command names the account the link acts for. */
export function registerHint(publicId: string): string {
  return publicId === FIRST_PARTY_PUBLIC_ID
    ? `the operator allows it with npm run callbacks -- add <url> --account ${FIRST_PARTY_PUBLIC_ID}`
    : "register its prefix with POST /deeplink/v1/callbacks or npm run callbacks -- add";
}
