import {
  type Grant,
  grantForm,
  type ProviderAnswer,
  providerUrlProblem,
  sdkTokens,
} from "../domain/identityProvider";
import type { Bindings, Db } from "../env";
import { findIdentityProvider, type IdentityProvider } from "../store/identityProviders";
import { urlPolicyOf } from "./pilotTokens";

const TOKEN_ENDPOINT_TIMEOUT_MS = 10_000;

/** What an operator sets so that the SDK login routes work; named in the 4xx when it is missing. */
export const PROVIDER_SETTING =
  "npm run pilots:provider -- set --account <id> --issuer <url> --discovery-url <url> --audience <aud> --client-id <id>";

/**
 * Passes a grant to the account's provider's token endpoint and answers in the SDKs' shape. The
 * password travels only in that one request: it is never logged, stored or put in an error.
 */
export async function exchangeGrant(
  env: Bindings,
  db: Db,
  accountId: string,
  grant: Grant,
  tokenType: "bearer" | "Bearer",
): Promise<ProviderAnswer> {
  // Read fresh, not from the token cache: an operator who just set the provider signs in at once.
  const provider = await findIdentityProvider(db, accountId);
  const unusable = unusableProvider(env, provider);
  if (unusable) return { ok: false, status: 400, error: "unauthorized_client", description: unusable };
  const { tokenEndpoint, clientId, clientSecret } = provider as IdentityProvider & {
    tokenEndpoint: string;
    clientId: string;
  };
  let response: Response;
  try {
    response = await fetch(tokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: grantForm(grant, clientId, clientSecret),
      redirect: "manual",
      signal: AbortSignal.timeout(TOKEN_ENDPOINT_TIMEOUT_MS),
    });
  } catch (err) {
    // The error names the endpoint and the failure, never the form (which holds the password).
    console.error(
      JSON.stringify({
        level: "error",
        msg: "identity provider unreachable",
        endpoint: tokenEndpoint,
        error: String(err),
      }),
    );
    return {
      ok: false,
      status: 502,
      error: "temporarily_unavailable",
      description: "the identity provider could not be reached; try again",
    };
  }
  const body = await response.json().catch(() => null);
  return sdkTokens(response.status, body, tokenType);
}

/** Why the account's provider cannot take a grant (naming the setting), or null when it can. */
function unusableProvider(env: Bindings, provider: IdentityProvider | null): string | null {
  if (!provider)
    return `This application has no identity provider for its pilots: the operator sets one with ${PROVIDER_SETTING}`;
  if (!provider.tokenEndpoint)
    return "The application's identity provider has no token endpoint: set --token-endpoint (or --discovery-url) with npm run pilots:provider";
  if (!provider.clientId)
    return "The application's identity provider has no client id: set --client-id with npm run pilots:provider";
  const problem = providerUrlProblem(provider.tokenEndpoint, urlPolicyOf(env, provider));
  if (problem) return `The identity provider's token endpoint ${problem}`;
  return null;
}
