import { loopbackAllowed, outboundUrlProblem } from "../domain/outboundUrl";
import { newSecret, secretProblem } from "../domain/webhooks";
import type { Bindings, Db } from "../env";
import { badRequest } from "../lib/errors";
import { putWebhook, type Webhook } from "../store/webhooks";

/**
 * Registers the account's conformance webhook: a URL the worker may call out to (no private
 * address; loopback only where the deployment allows it) and a signing secret, generated unless
 * the caller brings an acceptable one. 400 naming `url` or `secret`.
 */
export async function registerWebhook(
  env: Bindings,
  db: Db,
  accountId: string,
  url: string,
  secret: string | undefined,
  now: number,
): Promise<Webhook> {
  const urlProblem = outboundUrlProblem(url, {
    allowLoopback: loopbackAllowed(env.ENVIRONMENT, env.OUTBOUND_ALLOW_LOOPBACK),
  });
  if (urlProblem) throw badRequest("url", urlProblem);
  if (secret !== undefined) {
    const problem = secretProblem(secret);
    if (problem) throw badRequest("secret", problem);
  }
  return putWebhook(db, accountId, url, secret ?? newSecret(), now);
}
