import type { Polygon } from "../domain/geojson";
import type { Frame } from "../domain/map/view";
import type { Bindings, Db } from "../env";
import { ApiError, notFound, unauthorized } from "../lib/errors";
import { takeAccountPageRequest } from "../middleware/publicRateLimit";
import { type FlightRow, findFlight } from "../store/flights";
import { telemetryOf } from "../telemetry/flightTelemetry";
import { issueTicket, TICKET_LIFETIME_SECONDS, verifyTicket } from "../telemetry/tickets";
import type { ElevationSource } from "./elevation";
import { keyStillLive } from "./liveAccess";
import { livePageData } from "./liveFlights";
import { mapBasemap, mapImageSources } from "./mapTerrain";

/**
 * Who may watch a flight live (its stream, its page, its conformance events): a client with the
 * API key (and the pilot's token) reads the pilot's own flight or a public one of the account; a
 * browser presents a ticket, bound to the key it was issued with and the flight it names.
 */

/** A caller the API-key middleware let in. */
export interface KeyCaller {
  accountId: string;
  keyId: string;
  pilotId: string | undefined;
  tokenExpiresAt: number | undefined;
}

/** How a watcher came: with the API key, or with a ticket's text. */
export type LiveAccess = { caller: KeyCaller } | { ticket: string };

export interface Watched {
  flight: FlightRow;
  /** The ticket's text, when it came with one. */
  ticket: string | undefined;
  /** The pilot the access speaks for (the ticket's, when it came with one). */
  pilotId: string | undefined;
  /** What a stream it opens is bound to: ended when the key is revoked or the token expires. */
  binding: { keyId: string; tokenExpiresAt: number | undefined };
}

/** A flight the caller may read: its pilot's, or a public one of the account; otherwise 404. */
async function readableFlight(db: Db, accountId: string, pilotId: string | undefined, flightId: string) {
  const flight = await findFlight(db, accountId, flightId);
  if (!flight || (!flight.public && flight.pilotId !== pilotId)) throw notFound("Flight");
  return flight;
}

/**
 * The flight as its watcher may see it. A ticket must verify, name this flight and come from a key
 * still live (401, 403); it counts against its account's page requests.
 */
export async function watchedFlight(
  env: Bindings,
  db: Db,
  flightId: string,
  access: LiveAccess,
): Promise<Watched> {
  if ("caller" in access) {
    const { caller } = access;
    const binding = { keyId: caller.keyId, tokenExpiresAt: caller.tokenExpiresAt };
    const flight = await readableFlight(db, caller.accountId, caller.pilotId, flightId);
    return { flight, ticket: undefined, pilotId: caller.pilotId, binding };
  }
  const verified = await verifyTicket(env.TELEMETRY_MASTER_KEY, access.ticket);
  if (!verified.ok) throw unauthorized(`Invalid ticket: ${verified.reason}`);
  const { ticket } = verified;
  if (ticket.flightId !== flightId) throw new ApiError(403, "This ticket is for another flight");
  if (!(await keyStillLive(db, ticket.keyId)))
    throw unauthorized("Invalid ticket: the API key it was issued with is revoked");
  takeAccountPageRequest(env, ticket.accountId);
  const pilotId = ticket.pilotId ?? undefined;
  const flight = await findFlight(db, ticket.accountId, flightId);
  if (!flight || (!flight.public && flight.pilotId !== ticket.pilotId)) throw notFound("Flight");
  const binding = { keyId: ticket.keyId, tokenExpiresAt: ticket.tokenExpiresAt ?? undefined };
  return { flight, ticket: access.ticket, pilotId, binding };
}

/**
 * A ticket bound to the calling key, valid TICKET_LIFETIME_SECONDS whatever the pilot token's
 * remaining life: the links a page prints last what it says. Revoking the key still ends it and its
 * streams; the token's own streams still end with the token.
 */
async function ticketFor(env: Bindings, caller: KeyCaller, flight: FlightRow) {
  const own = flight.pilotId === caller.pilotId;
  const exp = Math.floor(Date.now() / 1000) + TICKET_LIFETIME_SECONDS;
  const ticket = await issueTicket(env.TELEMETRY_MASTER_KEY, {
    flightId: flight.id,
    accountId: flight.accountId,
    pilotId: own ? flight.pilotId : null,
    keyId: caller.keyId,
    tokenExpiresAt: null,
    exp,
  });
  return { ticket, exp };
}

/** A ticket for a flight the caller may read, for a browser to open its stream and pages. */
export async function liveTicket(env: Bindings, db: Db, caller: KeyCaller, flightId: string) {
  const flight = await readableFlight(db, caller.accountId, caller.pilotId, flightId);
  return { flight, ...(await ticketFor(env, caller, flight)) };
}

/** The conformance events of a flight the caller may read. */
export async function conformanceEvents(env: Bindings, db: Db, caller: KeyCaller, flightId: string) {
  const flight = await readableFlight(db, caller.accountId, caller.pilotId, flightId);
  return telemetryOf(env, flight.id).conformance();
}

/**
 * Opens the flight's live stream after `after` (an event id): the Durable Object's own stream,
 * untouched, so a reader who leaves frees its place at once and the object ends the stream when its
 * key is revoked or its token expires (telemetry/liveFeed.ts). Ticket readers are capped per
 * ticket; API-key readers per flight and account only.
 */
export async function openLiveStream(
  env: Bindings,
  db: Db,
  flightId: string,
  access: LiveAccess,
  after: number | null,
) {
  const { flight, ticket, pilotId, binding } = await watchedFlight(env, db, flightId, access);
  const holder = ticket ? ticket.slice(ticket.lastIndexOf(".") + 1) : "";
  const opened = await telemetryOf(env, flight.id).stream(after, {
    accountId: flight.accountId,
    holder,
    ...binding,
  });
  return { opened, pilotId };
}

/**
 * What the live page shows: the flight, a ticket for its stream (its own, when opened with API
 * headers, so the key never reaches a URL), the flight's state, terrain and map in `frameOf`, and
 * the image sources its map draws from.
 */
export async function livePage(
  env: Bindings,
  db: Db,
  source: ElevationSource,
  flightId: string,
  access: LiveAccess,
  frameOf: (area: Polygon) => Frame,
) {
  const { flight, ticket, pilotId } = await watchedFlight(env, db, flightId, access);
  const pageTicket =
    ticket ?? (await ticketFor(env, (access as { caller: KeyCaller }).caller, flight)).ticket;
  const data = await livePageData(env, db, source, flight, frameOf(flight.geometry));
  // The page's Content-Security-Policy allows the map's images: its data URLs and the basemap's tiles.
  return { flight, pilotId, ticket: pageTicket, imageSources: mapImageSources(mapBasemap(env)), ...data };
}
