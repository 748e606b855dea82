import { boxPolygon, type Polygon } from "../domain/geojson";
import type { Bindings, Db } from "../env";
import { randomBase62 } from "../lib/ids";
import { NetMaxNearRealTimeDataPeriodSeconds } from "../rid/constants";
import {
  declarationOf,
  type InjectedFlight,
  injectedEcho,
  parseTestParameters,
  type TestRegistration,
  testRegistration,
} from "../rid/injection";
import { operatorNotifications } from "../rid/operatorNotifications";
import { createDirectFlight } from "../services/flightCreation";
import { registerIsa, removeIsa } from "../services/ridDss";
import { deleteInactiveFlight, endFlight, findFlight } from "../store/flights";
import { deleteOperatorNotifications, insertOperatorNotifications } from "../store/ridNotifications";
import { type TelemetryRecord, telemetryOf } from "../telemetry/flightTelemetry";
import { INTERUSS_ACCOUNT, virtualPilot } from "./flightPlanning";
import { InvalidInput } from "./volumes";

/**
 * The qualifier's RID injection interface (rid/v1/injection.yaml): each requested flight becomes an
 * ordinary Windsock flight of the service account (`account|interuss`), and its states become
 * `position` and `speed` records stored through the flight's Durable Object exactly as the relay's
 * are, timestamps in the future included: /rid/v2 serves each once its time has come. A test's
 * version and flights are kept in a Durable Object of its own (named `rid-test|<test_id>`).
 */

export class TestExists extends Error {}
export class TestNotFound extends Error {}

/** Margin around the injected positions for the flight's area (meters, as degrees of latitude). */
const AREA_MARGIN_DEG = 50 / 111_320;
/** Ceiling of an injected flight when its states declare no height above ground (meters). */
const DEFAULT_CEILING_M = 120;

const registryOf = (env: Bindings, testId: string) => telemetryOf(env, `rid-test|${testId}`);

function areaOf(flight: InjectedFlight): Polygon {
  const lats = flight.states.map((s) => s.position.latitude!);
  const lngs = flight.states.map((s) => s.position.longitude!);
  const [s, n] = [Math.min(...lats) - AREA_MARGIN_DEG, Math.max(...lats) + AREA_MARGIN_DEG];
  const lngMargin = AREA_MARGIN_DEG / Math.max(Math.cos((((s + n) / 2) * Math.PI) / 180), 0.01);
  const [w, e] = [Math.min(...lngs) - lngMargin, Math.max(...lngs) + lngMargin];
  return boxPolygon({ minLat: s, minLng: w, maxLat: n, maxLng: e });
}

function recordsOf(flight: InjectedFlight, testId: string, now: number): TelemetryRecord[] {
  const sessionId = `rid-test|${testId}`;
  return flight.states.flatMap((state, i) => {
    const base = {
      sessionId,
      datagram: `rid ${flight.injectionId} ${i}`,
      serial: i,
      timestamp: state.timestamp,
      receivedAt: now,
    };
    const position: TelemetryRecord = { ...base, index: 0, type: "position", fields: state.position };
    return state.speed ? [position, { ...base, index: 1, type: "speed", fields: state.speed }] : [position];
  });
}

export async function createTest(
  db: Db,
  env: Bindings,
  testId: string,
  body: unknown,
  now: number,
  ownBaseUrl: string,
): Promise<{ injected_flights: Record<string, unknown>[]; version: string }> {
  const parsed = parseTestParameters(body, now);
  if (!parsed.ok) throw new InvalidInput(parsed.problems[0]!.field, parsed.problems[0]!.message);
  const registry = registryOf(env, testId);
  const version = `${now}.${randomBase62(6)}`;
  const claim: TestRegistration = { kind: "test", testId, version, flights: [], injected: [] };
  if (!(await registry.claimRemoteId(JSON.stringify(claim))))
    throw new TestExists(`Test ${testId} already exists`);
  try {
    const { accountId, pilotId } = await virtualPilot(db, env.DB, now);
    for (const flight of parsed.value) {
      const first = flight.states[0]!;
      const last = flight.states.at(-1)!;
      const heights = flight.states.flatMap((s) =>
        s.declared.height?.reference === "GroundLevel" ? [s.declared.height.distance] : [],
      );
      const row = await createDirectFlight(
        db,
        {
          accountId,
          pilotId,
          latitude: first.position.latitude!,
          longitude: first.position.longitude!,
          geometry: areaOf(flight),
          buffer: 0,
          maxAltitude: heights.length > 0 ? Math.max(DEFAULT_CEILING_M, ...heights) : DEFAULT_CEILING_M,
          startTime: Math.min(first.timestamp, now),
          // Display providers are shown a flight for NetMaxNearRealTimeDataPeriodSeconds after its
          // last state (the qualifier expects it until then), so the flight lasts that long too.
          endTime: Math.max(last.timestamp, now) + NetMaxNearRealTimeDataPeriodSeconds * 1000,
          public: false,
          notify: false,
          aircraftId: null,
        },
        now,
      );
      const telemetry = telemetryOf(env, row.id);
      // Synthetic states ahead of their time would only raise conformance noise (telemetry_lost, outside_time).
      await telemetry.setMonitoring(false);
      await telemetry.keepRemoteId(JSON.stringify(declarationOf(flight, testId)));
      await telemetry.ingest(recordsOf(flight, testId, now));
      claim.flights.push({ injectionId: flight.injectionId, flightId: row.id });
      claim.injected.push(injectedEcho(flight, row.id));
    }
    // Display providers find this service through the DSS: one area around all the test's flights,
    // from now (a DSS refuses a start minutes past; the qualifier's data may start long before the
    // injection) until its flights are no longer shown, as the flights themselves last.
    const states = parsed.value.flatMap((f) => f.states);
    const isa = await registerIsa(
      env,
      crypto.randomUUID(),
      states.map((s) => ({ lat: s.position.latitude!, lng: s.position.longitude!, alt: s.altitudeWgs84 })),
      now,
      Math.max(now, ...states.map((s) => s.timestamp)),
      ownBaseUrl,
    );
    if (isa) claim.isa = isa;
  } catch (err) {
    // Whatever was made is removed, and the test id is free again.
    await removeFlights(db, env, claim, now);
    await registry.erase();
    throw err;
  }
  await registry.keepRemoteId(JSON.stringify(claim));
  await insertOperatorNotifications(db, testId, operatorNotifications(parsed.value));
  return { injected_flights: claim.injected, version };
}

export async function deleteTest(
  db: Db,
  env: Bindings,
  testId: string,
  version: string,
  now: number,
): Promise<{ injected_flights: Record<string, unknown>[] }> {
  const registry = registryOf(env, testId);
  const registration = testRegistration(await registry.remoteIdDeclared());
  if (!registration || registration.version !== version)
    throw new TestNotFound(`No test ${testId} at version ${version}`);
  await removeFlights(db, env, registration, now);
  await deleteOperatorNotifications(db, testId);
  if (registration.isa) await removeIsa(env, registration.isa);
  await registry.erase();
  return { injected_flights: registration.injected };
}

/** Ends (or, not started yet, deletes) each flight and erases its records: it leaves /rid/v2 at once. */
async function removeFlights(
  db: Db,
  env: Bindings,
  registration: TestRegistration,
  now: number,
): Promise<void> {
  for (const { flightId } of registration.flights) {
    const flight = await findFlight(db, INTERUSS_ACCOUNT.id, flightId);
    if (flight && flight.startTime > now) await deleteInactiveFlight(db, flight, now);
    else if (flight && flight.endTime >= now) await endFlight(db, flightId, now);
    await telemetryOf(env, flightId).erase();
  }
}
