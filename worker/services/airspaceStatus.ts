import { pointStatus } from "../domain/airspace/advisories";
import { areaStatus } from "../domain/airspace/areaStatus";
import { representativePoint } from "../domain/airspace/geometry";
import type { QueryGeometry } from "../domain/airspace/queryGeometry";
import { withDecodedProperties } from "../domain/airspace/records";
import type { Position } from "../domain/geojson";
import type { Place, WeatherUpdate } from "../domain/weather/forecast";
import type { Bindings, Db } from "../env";
import { areaAdvisoryInputs, statusInputs } from "./airspace";
import { weatherAt } from "./weather";

/** The SDKs' status answers (`/status/v2/point|polygon|path`): what a flight there meets, and the weather. */

export interface StatusRequest {
  /** Only these airspace types; every type when absent. */
  types: string[] | undefined;
  window: { start: number; end: number };
  buffer: number;
  /** With the weather at the window's start. */
  weather: boolean | undefined;
}

/** The status within `buffer` of a point, under the default selection of the rulesets that apply there. */
export async function statusAtPoint(db: Db, env: Bindings, at: Position, request: StatusRequest) {
  const { types, window, buffer } = request;
  const { rulesets, features, cells } = await statusInputs(db, at, buffer, { types, ...window });
  const status = pointStatus({
    point: at,
    buffer,
    features,
    cells,
    rulesets,
    includeCells: !types || types.includes("controlled_airspace"),
  });
  const place = { longitude: at[0]!, latitude: at[1]! };
  return withWeather(env, request, place, {
    ...status,
    advisories: status.advisories.map(withDecodedProperties),
  });
}

/**
 * The status within `buffer` of an area or path; the weather at `place` where given, else at a
 * point of the geometry.
 */
export async function statusOfArea(
  db: Db,
  env: Bindings,
  query: QueryGeometry,
  place: { latitude?: number; longitude?: number },
  request: StatusRequest,
) {
  const { types, window, buffer } = request;
  const { rulesets, features, cells } = await areaAdvisoryInputs(db, query.area, buffer, [], window);
  const status = areaStatus({
    area: query.area,
    buffer,
    features: types ? features.filter((f) => types.includes(f.type)) : features,
    cells,
    rulesets,
  });
  const [lng, lat] = representativePoint(query.geometry);
  const weatherPlace = { latitude: place.latitude ?? lat, longitude: place.longitude ?? lng };
  return withWeather(env, request, weatherPlace, {
    ...status,
    advisories: status.advisories.map(withDecodedProperties),
  });
}

/** Status never fails for weather: without it the answer says why in `weather_unavailable`. */
async function withWeather<T extends object>(
  env: Bindings,
  request: StatusRequest,
  place: Place,
  status: T,
): Promise<T & { weather?: WeatherUpdate; weather_unavailable?: string }> {
  if (!request.weather) return status;
  const found = await weatherAt(env, place, request.window.start);
  return "weather" in found
    ? { ...status, weather: found.weather }
    : { ...status, weather_unavailable: found.unavailable };
}
