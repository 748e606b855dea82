import { NetMaxNearRealTimeDataPeriodSeconds } from "./constants";
import { rfc3339, type Time } from "./f3411";

/**
 * The F3411-22a DSS exchange of a Service Provider (pure): the Identification Service Area that
 * covers a set of injected flights, and the notification each subscriber the DSS names must get.
 */

export interface Volume4D {
  volume: {
    outline_polygon: { vertices: { lat: number; lng: number }[] };
    altitude_lower: { value: number; reference: "W84"; units: "M" };
    altitude_upper: { value: number; reference: "W84"; units: "M" };
  };
  time_start: Time;
  time_end: Time;
}

/** Margin around the flights, so the area does not trace one flight's path (the standard asks so). */
const MARGIN_DEG = 0.01;

/** The ISA's extents around positions (lat, lng, WGS84 alt) timed from `start` to `end` (ms). */
export function isaExtents(
  points: { lat: number; lng: number; alt: number }[],
  start: number,
  end: number,
): Volume4D {
  const lats = points.map((p) => p.lat);
  const lngs = points.map((p) => p.lng);
  const alts = points.map((p) => p.alt);
  const [s, n] = [Math.min(...lats) - MARGIN_DEG, Math.max(...lats) + MARGIN_DEG];
  const [w, e] = [Math.min(...lngs) - MARGIN_DEG, Math.max(...lngs) + MARGIN_DEG];
  const altitude = (value: number) => ({
    value: Math.round(value),
    reference: "W84" as const,
    units: "M" as const,
  });
  return {
    volume: {
      outline_polygon: {
        vertices: [
          { lat: s, lng: w },
          { lat: s, lng: e },
          { lat: n, lng: e },
          { lat: n, lng: w },
        ],
      },
      altitude_lower: altitude(Math.min(...alts) - 50),
      altitude_upper: altitude(Math.max(...alts) + 50),
    },
    time_start: rfc3339(start),
    // Flights stay visible for NetMaxNearRealTimeDataPeriodSeconds after their last position.
    time_end: rfc3339(end + NetMaxNearRealTimeDataPeriodSeconds * 1000),
  };
}

/** A subscriber the DSS asks the changer of an ISA to notify (SubscriberToNotify). */
export interface Subscriber {
  url: string;
  subscriptions: { subscription_id: string; notification_index?: number }[];
}

export function subscribersOf(response: unknown): Subscriber[] {
  const list = (response as { subscribers?: unknown })?.subscribers;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (s): s is Subscriber =>
      typeof s?.url === "string" && Array.isArray(s?.subscriptions) && s.subscriptions.length > 0,
  );
}

/** POST `{url}/uss/identification_service_areas/{id}`'s body; without the area, a deletion. */
export function notification(subscriber: Subscriber, serviceArea: unknown, extents: Volume4D | undefined) {
  return {
    subscriptions: subscriber.subscriptions,
    ...(serviceArea ? { service_area: serviceArea } : {}),
    ...(extents ? { extents } : {}),
  };
}
