import { call, type TestAccount } from "./helpers";

/** A small closed square around Santa Monica, as clients send it: [longitude, latitude]. */
export const square = {
  type: "Polygon",
  coordinates: [
    [
      [-118.49, 34.01],
      [-118.48, 34.01],
      [-118.48, 34.02],
      [-118.49, 34.02],
      [-118.49, 34.01],
    ],
  ],
};

/** A small square in Knoxville, Tennessee: the swapped polygon lies in Antarctica. */
export const knoxville = {
  type: "Polygon",
  coordinates: [
    [
      [-83.92, 35.96],
      [-83.91, 35.96],
      [-83.91, 35.97],
      [-83.92, 35.97],
      [-83.92, 35.96],
    ],
  ],
};

/** The geometry with every position written [latitude, longitude], the mistake the sanity checks catch. */
export function swapped<T extends { type: string; coordinates: unknown }>(geometry: T): T {
  const swap = (value: unknown): unknown =>
    Array.isArray(value) && typeof value[0] === "number"
      ? [value[1], value[0]]
      : (value as unknown[]).map(swap);
  return { ...geometry, coordinates: swap(geometry.coordinates) };
}

export const hour = 60 * 60 * 1000;
export const iso = (ms: number) => new Date(ms).toISOString();

export function planBody(overrides: Record<string, unknown> = {}) {
  return {
    takeoff_latitude: 34.015,
    takeoff_longitude: -118.485,
    start_time: iso(Date.now() + hour),
    end_time: iso(Date.now() + 2 * hour),
    max_altitude_agl: 100,
    buffer: 0,
    geometry: square,
    ...overrides,
  };
}

export async function createPlan(
  account: TestAccount,
  token: string,
  overrides: Record<string, unknown> = {},
) {
  const res = await call("/flight/v2/plan", {
    method: "POST",
    apiKey: account.apiKey,
    token,
    body: planBody(overrides),
  });
  if (res.status !== 200) throw new Error(`plan: ${res.status} ${res.text}`);
  return res.json.data;
}

export async function flightAt(
  account: TestAccount,
  token: string,
  body: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const res = await call("/flight/v2/point", {
    method: "POST",
    apiKey: account.apiKey,
    token,
    body: { latitude: 34.015, longitude: -118.485, ...body },
  });
  if (res.status !== 200) throw new Error(`point: ${res.status} ${res.text}`);
  return res.json.data;
}

/** A flight under way: a 200 m circle around 10.5, 20.5, ceiling 60 m, from a minute ago for an hour. */
export function activeFlightBody(overrides: Record<string, unknown> = {}) {
  return {
    latitude: 10.5,
    longitude: 20.5,
    buffer: 200,
    max_altitude: 60,
    start_time: iso(Date.now() - 60_000),
    end_time: iso(Date.now() + hour),
    ...overrides,
  };
}

/** Creates a flight under way (activeFlightBody) for the pilot; its id. */
export async function activeFlight(
  auth: { apiKey: string; token: string },
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await call("/flight/v2/point", { method: "POST", ...auth, body: activeFlightBody(overrides) });
  if (res.status !== 200) throw new Error(`point: ${res.status} ${res.text}`);
  return res.json.data.id;
}
