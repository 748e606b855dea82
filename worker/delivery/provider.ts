import type { VerificationChannel } from "../../schema";

/** One verification code on its way to a pilot. */
export interface VerificationDelivery {
  pilotId: string;
  channel: VerificationChannel;
  /** E.164 phone number or email address. */
  to: string;
  code: string;
}

/** Sends verification codes; resolves once the provider has accepted the message. */
export interface DeliveryProvider {
  deliver(message: VerificationDelivery): Promise<void>;
}

/** The provider refused the message or could not be reached: the code did not go out. */
export class DeliveryFailed extends Error {}

const PROVIDER_TIMEOUT_MS = 10_000;

/** Fetch for provider APIs: network failures and timeouts become DeliveryFailed. */
export async function providerFetch(provider: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new DeliveryFailed(`${provider} unreachable: ${error instanceof Error ? error.message : error}`);
  }
}

/** A refusal in the provider's own words (Twilio and Resend both answer `{message}`). */
export async function refusal(provider: string, response: Response): Promise<DeliveryFailed> {
  const detail = (await response.json().catch(() => null)) as { code?: unknown; message?: unknown } | null;
  const message = typeof detail?.message === "string" ? `: ${detail.message}` : "";
  const code = typeof detail?.code === "number" ? ` (code ${detail.code})` : "";
  return new DeliveryFailed(`${provider} answered ${response.status}${message}${code}`);
}
