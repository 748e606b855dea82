import { datagramIdentity, type IngestRequest, type IngestResult } from "../../proto/ingest";
import { namedFields, recordKinds } from "../../proto/records";
import { recordTimeProblem, type TimeProblem } from "../../proto/recordTime";
import { flightState } from "../domain/flightState";
import type { Bindings, Db } from "../env";
import { conflict, notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import type { FlightRow } from "../store/flights";
import { closeSessions, findOpenSession, findSessions, openSession } from "../store/telemetrySessions";
import { type TelemetryRecord, telemetryOf } from "../telemetry/flightTelemetry";
import { newSessionKey, sealKey, unsealKey } from "../telemetry/sessionKeys";

/**
 * A flight's telemetry sessions: start-comm opens one with a fresh key (sealed at rest), end-comm
 * and the flight's end close it, the relay reads its key, and ingest stores what the relay posts
 * for sessions that exist and are open.
 */

/** A fresh session key for a flight that is not over (409 for an ended one). */
export async function openTelemetrySession(env: Bindings, db: Db, flight: FlightRow, now: number) {
  if (flightState(flight, now) === "ended")
    throw conflict("This flight has ended; start-comm needs a flight that is not over");
  const sessionId = newId("session");
  const key = newSessionKey();
  await openSession(db, {
    id: sessionId,
    flightId: flight.id,
    sealedKey: await sealKey(env.TELEMETRY_MASTER_KEY, sessionId, key),
    openedAt: now,
    closedAt: null,
  });
  return key;
}

/**
 * Closes the flight's sessions and its live Identification Service Area (worker/telemetry/isaOutbox.ts).
 * Only the flight's Durable Object is told of the ISA (its own storage, no DSS call): the alarm
 * deletes the ISA at the DSS, with retries.
 */
export async function closeTelemetry(env: Bindings, db: Db, flightId: string, now: number): Promise<void> {
  await closeSessions(db, flightId, now);
  await closeLiveIsa(env, flightId);
}

/** Tells the flight's Durable Object that its ISA closes; a failure is logged, not thrown. */
export async function closeLiveIsa(env: Bindings, flightId: string): Promise<void> {
  try {
    await telemetryOf(env, flightId).closeLiveIsa();
  } catch (err) {
    // The session is closed either way; the ISA then lapses at its time_end.
    console.error(
      JSON.stringify({
        level: "error",
        message: "ISA close failed",
        flight_id: flightId,
        error: String(err),
      }),
    );
  }
}

/** The relay's view of a flight's open session: its id, opening time and unsealed key (404 when none). */
export async function openSessionKey(env: Bindings, db: Db, flightId: string) {
  const session = await findOpenSession(db, flightId);
  if (!session) throw notFound("Open telemetry session");
  const key = await unsealKey(env.TELEMETRY_MASTER_KEY, session.id, session.sealedKey);
  return { session, key };
}

/**
 * Stores the relay's records in their flights' Durable Objects. Refused, counted per session: records
 * of unknown sessions, records received after their session closed (the relay's key cache may lag
 * end-comm), and records whose time is implausible.
 */
export async function ingestTelemetry(
  env: Bindings,
  db: Db,
  posted: IngestRequest["sessions"],
): Promise<IngestResult> {
  const known = await findSessions(db, [...new Set(posted.map((p) => p.session_id))]);
  const now = Date.now();
  const byFlight = new Map<string, TelemetryRecord[]>();
  const refused: IngestResult["refused"] = [];
  for (const { flight_id, session_id, records, datagrams } of posted) {
    const session = known.get(session_id);
    if (!session || session.flightId !== flight_id) {
      refused.push({ session_id, reason: "unknown_session", records: records.length });
      continue;
    }
    const list = byFlight.get(flight_id) ?? [];
    byFlight.set(flight_id, list);
    let late = 0;
    const implausible: Record<TimeProblem, number> = { before_session: 0, in_future: 0 };
    // An indexed loop reading the rows in place: destructuring each into a fresh values array cost
    // a third of this loop's time per record.
    for (let i = 0; i < records.length; i++) {
      const row = records[i]!;
      const serial = row[0];
      const index = row[1];
      const type = row[2];
      const timestamp = row[3];
      const receivedAt = row[4];
      if (session.closedAt !== null && receivedAt > session.closedAt) {
        late++;
        continue;
      }
      const problem = recordTimeProblem(timestamp, session.openedAt, now);
      if (problem) {
        implausible[problem]++;
        continue;
      }
      const fields = namedFields(recordKinds.byName.get(type)!, row, 5);
      const datagram = datagramIdentity(datagrams, i, serial);
      list.push({ sessionId: session_id, datagram, serial, index, type, timestamp, receivedAt, fields });
    }
    if (late > 0) refused.push({ session_id, reason: "session_closed", records: late });
    for (const [reason, count] of Object.entries(implausible))
      if (count > 0) refused.push({ session_id, reason, records: count });
  }
  const results = await Promise.all(
    [...byFlight]
      .filter(([, list]) => list.length > 0)
      .map(([flightId, list]) => telemetryOf(env, flightId).ingest(list)),
  );
  return {
    stored: results.reduce((sum, r) => sum + r.stored, 0),
    duplicates: results.reduce((sum, r) => sum + r.duplicates, 0),
    refused,
  };
}
