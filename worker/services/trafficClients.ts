import type { TrafficClient } from "../../proto/traffic";
import type { Bindings, Db } from "../env";
import { forbidden, notFound, unauthorized } from "../lib/errors";
import { findTrafficFlight } from "../store/trafficClients";
import { verifyTicket } from "../telemetry/tickets";
import { keyStillLive } from "./liveAccess";
import { pilotOfBearer } from "./pilotTokens";

/**
 * Whether an MQTT client of the traffic broker may monitor a flight (docs/traffic.md): its token
 * must be a pilot token the flight's application accepts (this service's own, or its OpenID
 * provider's), of the flight's own pilot, while the flight has not ended and its application still
 * has a live key. The live page's browser client presents its watch ticket instead (it may watch the
 * flight, so it may see its traffic) until the ticket expires or its key is revoked. Refusals are
 * thrown (401, 403, 404); the broker answers them with CONNACK 5.
 */
export async function admitTrafficClient(
  env: Bindings,
  db: Db,
  flightId: string,
  token: string,
  now: number,
): Promise<TrafficClient> {
  const flight = await findTrafficFlight(db, flightId);
  if (!flight) throw notFound("Flight");
  if (!flight.applicationLive) throw forbidden("The flight's application has no live API key");
  if (token.startsWith("v1.")) {
    const checked = await verifyTicket(env.TELEMETRY_MASTER_KEY, token);
    if (!checked.ok) throw unauthorized(`Invalid ticket: ${checked.reason}`);
    if (checked.ticket.flightId !== flightId) throw forbidden("The ticket is for another flight");
    if (!(await keyStillLive(db, checked.ticket.keyId))) throw forbidden("The ticket's API key was revoked");
    if (flight.endTime < now) throw forbidden("The flight has ended");
    const pilot = checked.ticket.pilotId ?? "";
    return {
      flight_id: flightId,
      pilot_id: pilot,
      ends_at: flight.endTime,
      token_expires_at: checked.ticket.exp * 1000,
    };
  }
  const { pilotId, expiresAt } = await pilotOfBearer(env, db, token, flight.accountId);
  if (pilotId !== flight.pilotId) throw forbidden("This flight belongs to another pilot");
  if (flight.endTime < now) throw forbidden("The flight has ended");
  return {
    flight_id: flightId,
    pilot_id: pilotId,
    ends_at: flight.endTime,
    token_expires_at: expiresAt * 1000,
  };
}
