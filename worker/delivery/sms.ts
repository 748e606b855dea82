import { verificationMessage } from "../domain/verification";
import type { Bindings } from "../env";
import { type DeliveryProvider, providerFetch, refusal } from "./provider";

const TWILIO_API_URL = "https://api.twilio.com";

/**
 * SMS over Twilio's REST API (or any service of the same shape at SMS_API_URL): a form POST to
 * `/2010-04-01/Accounts/{SMS_ACCOUNT_SID}/Messages.json` with HTTP basic auth. SMS_FROM is the
 * sending number, or a Messaging Service SID (`MG…`). Undefined unless SID, token and sender are set.
 */
export function smsProvider(env: Bindings): DeliveryProvider | undefined {
  const { SMS_ACCOUNT_SID: sid, SMS_AUTH_TOKEN: authToken, SMS_FROM: from } = env;
  if (!sid || !authToken || !from) return undefined;
  const base = (env.SMS_API_URL || TWILIO_API_URL).replace(/\/+$/, "");
  const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
  return {
    async deliver({ to, code }) {
      const form = new URLSearchParams({ To: to, Body: verificationMessage(code) });
      form.set(/^MG[0-9a-f]{32}$/i.test(from) ? "MessagingServiceSid" : "From", from);
      const response = await providerFetch("SMS provider", url, {
        method: "POST",
        headers: {
          Authorization: `Basic ${btoa(`${sid}:${authToken}`)}`,
          "Content-Type": "application/x-www-form-urlencoded",
          Accept: "application/json",
        },
        body: form.toString(),
      });
      if (response.ok) {
        await response.body?.cancel();
        return;
      }
      throw await refusal("SMS provider", response);
    },
  };
}
