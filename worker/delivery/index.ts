import type { VerificationChannel } from "../../schema";
import type { Bindings, Db } from "../env";
import { emailProvider } from "./email";
import { outboxProvider } from "./outbox";
import type { DeliveryProvider } from "./provider";
import { smsProvider } from "./sms";

export { DeliveryFailed, type DeliveryProvider } from "./provider";

/**
 * The provider for a channel: in development every channel goes to the outbox; elsewhere SMS and
 * email go through the HTTP providers configured by secrets. Undefined when none is configured.
 */
export function deliveryProvider(
  env: Bindings,
  db: Db,
  channel: VerificationChannel,
): DeliveryProvider | undefined {
  if (env.ENVIRONMENT === "development") return outboxProvider(db);
  return channel === "phone" ? smsProvider(env) : emailProvider(env);
}
