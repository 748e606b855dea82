import { callbackPrefixProblem, callbackProblem, normalizePrefix } from "../domain/deeplink/callbacks";
import { registerHint } from "../domain/deeplink/firstParty";
import {
  checkLinkFields,
  creationLink,
  type DynamicLinkConfig,
  dynamicLink,
  linkLengthProblem,
  type RawLinkFields,
} from "../domain/deeplink/link";
import type { Account, Bindings, Db } from "../env";
import { badRequest, problemError } from "../lib/errors";
import { addCallbackPrefix, type CallbackPrefix, listCallbackPrefixes } from "../store/callbacks";
import { unknownRulesetIds } from "../store/rulesets";
import { issueLinkGrant } from "./pageSignIn";

/**
 * Deep links (spec 4.7): the creation link a partner asks for, wrapped in the outer link that opens
 * the operator's app, and the callback prefixes its links may return to.
 */

/** Where the outer link is served: DEEPLINK_BASE_URL's default. */
export const OUTER_LINK_PATH = "/deeplink/v1/open";

/** The outer link's address: the operator's, or this service's own. */
export function outerLinkBase(env: Bindings, origin: string): string {
  return env.DEEPLINK_BASE_URL || `${origin}${OUTER_LINK_PATH}`;
}

const isDevelopment = (env: Bindings) => env.ENVIRONMENT === "development";

/**
 * The operator's values. Apps (`apn`, `isi`, `ibi`) may be unset: the link then carries none and
 * phones open the creation page in the browser. The outer link is this service's own unless the
 * operator names another; `ofl` may be empty.
 */
function dynamicLinkConfig(env: Bindings, origin: string): DynamicLinkConfig {
  return {
    baseUrl: outerLinkBase(env, origin),
    apn: env.DEEPLINK_APN ?? "",
    isi: env.DEEPLINK_ISI ?? "",
    ibi: env.DEEPLINK_IBI ?? "",
    pt: env.DEEPLINK_PT,
    ofl: env.DEEPLINK_OFL,
  };
}

/**
 * A flight-creation link for the account: its fields checked, its callback under one of the
 * account's prefixes, its rulesets known, and at most as long as the apps open. Asked with a
 * pilot's token, the link signs that pilot in, once, for a short while (a link refused for its
 * length leaves an unused grant that expires).
 */
export async function flightCreationLink(
  env: Bindings,
  db: Db,
  account: Pick<Account, "id" | "publicId">,
  pilotId: string | undefined,
  fields: RawLinkFields,
  origin: string,
): Promise<{ link: string; signInExpiresAt?: number }> {
  const check = checkLinkFields(fields, "refuse");
  if (!check.ok) throw problemError(check.problems);
  const request = check.value;
  if (request.callbackUrl !== undefined) {
    const prefixes = (await listCallbackPrefixes(db, account.id)).map((p) => p.url);
    const problem = callbackProblem(
      request.callbackUrl,
      prefixes,
      isDevelopment(env),
      registerHint(account.publicId),
    );
    if (problem) throw badRequest("callback_url", problem);
  }
  const unknown = await unknownRulesetIds(db, request.rulesetIds ?? []);
  if (unknown.length > 0) throw badRequest("ruleset_ids", `unknown rulesets: ${unknown.join(", ")}`);
  const appLinkBase = env.DEEPLINK_APP_LINK_BASE || origin;
  const signIn = pilotId ? await issueLinkGrant(db, account.id, pilotId) : undefined;
  const creation = creationLink(appLinkBase, account.publicId, request, signIn?.grant);
  const link = dynamicLink(dynamicLinkConfig(env, origin), creation, account.publicId);
  const tooLong = linkLengthProblem(creation, "creation link") ?? linkLengthProblem(link, "link");
  if (tooLong) throw problemError([tooLong]);
  return signIn ? { link, signInExpiresAt: signIn.expiresAt } : { link };
}

/** Allows callbacks under a prefix (https; http only for localhost in development); the prefix as stored. */
export async function registerCallbackPrefix(
  env: Bindings,
  db: Db,
  accountId: string,
  url: string,
  now: number,
): Promise<CallbackPrefix> {
  const problem = callbackPrefixProblem(url, isDevelopment(env));
  if (problem) throw badRequest("url", problem);
  const normalized = normalizePrefix(url);
  await addCallbackPrefix(db, accountId, normalized, now);
  return (await listCallbackPrefixes(db, accountId)).find((p) => p.url === normalized)!;
}
