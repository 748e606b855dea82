import { egm96, geoidHeight } from "../domain/geoid";
import { type Checked, checked, problem } from "../domain/problem";
import type { Bindings } from "../env";
import { positionSamples, ridFlightFor } from "../rid/aircraftState";
import { NetMaxNearRealTimeDataPeriodSeconds } from "../rid/constants";
import { declaredDetailsAsF3411, detailsInForce, windsockFlightDetails } from "../rid/details";
import { type GetFlightsResponse, type RIDFlight, type RIDFlightDetails, rfc3339 } from "../rid/f3411";
import { flightDeclaration } from "../rid/injection";
import { cellsOfView, INDEX_WINDOW_MS } from "../rid/liveIndex";
import type { View } from "../rid/view";
import { flightsReportingIn } from "../store/livePositions";
import { remoteIdFlight } from "../store/remoteIdFlights";
import { telemetryOf } from "../telemetry/flightTelemetry";

/**
 * ASTM F3411-22a network Remote ID as a Service Provider: every live flight (any account, private
 * ones included) with a position in the view in the last NetMaxNearRealTimeDataPeriodSeconds, read
 * from its Durable Object on each request, so a display provider polling at 1 Hz sees every record of
 * a flight sending at 1 Hz or faster, whether it came through the UDP relay, HTTP ingest or injection.
 * Only the flights the live-position index (worker/rid/liveIndex.ts) places in the view's cells are
 * asked: a request costs the flights near the view, not every live flight in the world.
 */

/**
 * Flights asked of their Durable Objects for one view (at most 7 km across). Beyond it the view is
 * refused with 413 rather than answered in part: a display provider must show every flight in its
 * view, and 413 is F3411's answer for a view too large to serve (a smaller view is served).
 */
export const MAX_FLIGHTS_PER_VIEW = 1000;

const toWgs84 = (lat: number, lng: number, egm96Height: number) =>
  egm96Height + geoidHeight(egm96(), lat, lng);

export async function flightsInView(
  env: Bindings,
  view: View,
  recentSeconds: number,
  now: number,
): Promise<Checked<GetFlightsResponse>> {
  const since = now - NetMaxNearRealTimeDataPeriodSeconds * 1000;
  const ids = await flightsReportingIn(
    env.DB,
    cellsOfView(view),
    now - INDEX_WINDOW_MS,
    now,
    MAX_FLIGHTS_PER_VIEW + 1,
  );
  if (ids.length > MAX_FLIGHTS_PER_VIEW)
    return problem(
      "view",
      `more than ${MAX_FLIGHTS_PER_VIEW} live flights report near this view; ask for smaller views`,
      true,
    );
  const found = await Promise.all(
    ids.map(async (id): Promise<RIDFlight | null> => {
      const window = await telemetryOf(env, id).remoteIdWindow(since, now);
      const declared = flightDeclaration(window.declared);
      const samples = positionSamples(window.records, declared?.states, toWgs84);
      return ridFlightFor(
        { id, aircraftType: declared?.aircraftType ?? "NotDeclared", simulated: !!declared, samples },
        view,
        recentSeconds,
        now,
      );
    }),
  );
  return checked({ timestamp: rfc3339(now), flights: found.filter((f): f is RIDFlight => f !== null) });
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
