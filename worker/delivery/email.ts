import { verificationMessage } from "../domain/verification";
import type { Bindings } from "../env";
import { type DeliveryProvider, providerFetch, refusal } from "./provider";

const RESEND_API_URL = "https://api.resend.com/emails";

/**
 * Email through a JSON mail API of Resend's shape (POST `{from, to, subject, text}` with a bearer
 * key) at EMAIL_API_URL. Undefined unless EMAIL_API_KEY and EMAIL_FROM are set.
 */
export function emailProvider(env: Bindings): DeliveryProvider | undefined {
  const { EMAIL_API_KEY: apiKey, EMAIL_FROM: from } = env;
  if (!apiKey || !from) return undefined;
  const url = env.EMAIL_API_URL || RESEND_API_URL;
  return {
    async deliver({ to, code }) {
      const response = await providerFetch("Email provider", url, {
        method: "POST",
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          from,
          to: [to],
          subject: "Your Windsock verification code",
          text: verificationMessage(code),
        }),
      });
      if (response.ok) {
        await response.body?.cancel();
        return;
      }
      throw await refusal("Email provider", response);
    },
  };
}
