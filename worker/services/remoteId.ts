import { egm96, geoidHeight } from "../domain/geoid";
import type { Bindings } from "../env";
import { positionSamples, ridFlightFor } from "../rid/aircraftState";
import { NetMaxNearRealTimeDataPeriodSeconds } from "../rid/constants";
import { declaredDetailsAsF3411, detailsInForce, windsockFlightDetails } from "../rid/details";
import { type GetFlightsResponse, type RIDFlight, type RIDFlightDetails, rfc3339 } from "../rid/f3411";
import { flightDeclaration } from "../rid/injection";
import type { View } from "../rid/view";
import { liveFlights, remoteIdFlight } from "../store/remoteIdFlights";
import { telemetryOf } from "../telemetry/flightTelemetry";

/**
 * ASTM F3411-22a network Remote ID as a Service Provider: every live flight (any account, private
 * ones included) with a position in the last NetMaxNearRealTimeDataPeriodSeconds, read from its
 * Durable Object on each request, so a display provider polling at 1 Hz sees every record of a
 * flight sending at 1 Hz or faster, whether it came through the UDP relay, HTTP ingest or injection.
 */

/** Flights asked of their Durable Objects per request; beyond it the most recently started are kept. */
export const MAX_LIVE_FLIGHTS = 500;

const toWgs84 = (lat: number, lng: number, egm96Height: number) =>
  egm96Height + geoidHeight(egm96(), lat, lng);

export async function flightsInView(
  env: Bindings,
  view: View,
  recentSeconds: number,
  now: number,
): Promise<GetFlightsResponse> {
  const since = now - NetMaxNearRealTimeDataPeriodSeconds * 1000;
  const rows = await liveFlights(env.DB, now, MAX_LIVE_FLIGHTS);
  const found = await Promise.all(
    rows.map(async (row): Promise<RIDFlight | null> => {
      const window = await telemetryOf(env, row.id).remoteIdWindow(since, now);
      const declared = flightDeclaration(window.declared);
      const samples = positionSamples(window.records, declared?.states, toWgs84);
      return ridFlightFor(
        { id: row.id, aircraftType: declared?.aircraftType ?? "NotDeclared", simulated: !!declared, samples },
        view,
        recentSeconds,
        now,
      );
    }),
  );
  return { timestamp: rfc3339(now), flights: found.filter((f): f is RIDFlight => f !== null) };
}

/**
 * A flight's details while /uss/flights reports it: not ended, with a position in the last
 * NetMaxNearRealTimeDataPeriodSeconds. Past and deleted flights' take-off points are not handed out.
 * Null when there is no such flight.
 */
export async function flightDetails(
  env: Bindings,
  id: string,
  now: number,
): Promise<RIDFlightDetails | null> {
  const row = await remoteIdFlight(env.DB, id);
  if (!row || row.endTime < now) return null;
  const window = await telemetryOf(env, row.id).remoteIdWindow(
    now - NetMaxNearRealTimeDataPeriodSeconds * 1000,
    now,
  );
  if (!window.records.some((r) => r.type === "position")) return null;
  const declared = flightDeclaration(window.declared);
  const inForce = declared && detailsInForce(declared.details, now);
  return inForce ? declaredDetailsAsF3411(inForce.details, row.id) : windsockFlightDetails(row);
}
