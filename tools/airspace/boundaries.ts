import { feature } from "topojson-client";
import type { Topology } from "topojson-specification";
import type { Jurisdiction, Region } from "../../worker/domain/airspace/jurisdictions";
import type { Geometry, MultiPolygon, Position } from "../../worker/domain/geojson";

/** Jurisdictions of the embedded default, from real boundaries. */
export interface JurisdictionRecord extends Jurisdiction {
  code: string;
  geometry: Geometry;
  source: string;
}

/** Ids are stable across loads, so rulesets can name them: ISO numeric, then the source's codes. */
const USA_ID = 840;
const UK_ID = 826;
const stateId = (fips: string) => 840_000 + Number(fips);
const countyId = (fips: string) => 84_000_000 + Number(fips);
const UK_NATIONS = ["England", "Scotland", "Wales", "Northern Ireland"];
const nationId = (nation: string) => 826_001 + UK_NATIONS.indexOf(nation);
const ukRegionId = (fid: number) => 82_600_000 + fid;

/** The UK's admin-1 regions as deriveUkRegions.ts writes them to data/airspace/uk-regions.geojson. */
export interface UkRegions {
  features: {
    properties: { fid: number; name: string; code: string; nation: string };
    geometry: MultiPolygon;
  }[];
}

export interface BoundarySources {
  /** us-atlas `counties-10m.json`: Census 2017 nation, states and counties. */
  usAtlas: Topology;
  /** world-atlas `countries-10m.json`: Natural Earth countries. */
  worldAtlas: Topology;
  ukRegions: UkRegions;
  /** Leave out the 3,231 counties where only states matter (tests). */
  withCounties?: boolean;
}

/** The USA (nation, 56 states and territories, counties) and the UK (kingdom, four nations, regions). */
export function jurisdictionsFrom(sources: BoundarySources): JurisdictionRecord[] {
  return [
    ...usa(sources.usAtlas, sources.withCounties ?? true),
    ...uk(sources.worldAtlas, sources.ukRegions),
  ];
}

function usa(topology: Topology, withCounties: boolean): JurisdictionRecord[] {
  const shapes = (name: string) => {
    const collection = feature(topology, topology.objects[name]!) as unknown as {
      features: { id?: string | number; properties: { name?: string } | null; geometry: Geometry | null }[];
    };
    return collection.features.filter((f) => f.geometry);
  };
  const record = (
    id: number,
    name: string,
    region: Region,
    code: string,
    parentId: number | null,
    geometry: Geometry,
  ): JurisdictionRecord => ({
    id,
    name,
    region,
    country: "USA",
    code,
    parentId,
    geometry: tidy(geometry),
    source: "us-atlas",
  });
  const [nation] = shapes("nation");
  return [
    record(USA_ID, "United States", "federal", "US", null, nation!.geometry!),
    ...shapes("states").map((s) =>
      record(
        stateId(String(s.id)),
        s.properties?.name ?? String(s.id),
        "state",
        String(s.id),
        USA_ID,
        s.geometry!,
      ),
    ),
    ...(withCounties ? shapes("counties") : []).map((c) =>
      record(
        countyId(String(c.id)),
        c.properties?.name ?? String(c.id),
        "county",
        String(c.id),
        stateId(String(c.id).slice(0, 2)),
        c.geometry!,
      ),
    ),
  ];
}

function uk(world: Topology, regions: UkRegions): JurisdictionRecord[] {
  const countries = feature(world, world.objects.countries!) as unknown as {
    features: { id?: string; geometry: Geometry }[];
  };
  const kingdom = countries.features.find((c) => c.id === String(UK_ID));
  if (!kingdom) throw new Error("world-atlas has no United Kingdom (826)");
  const nations = UK_NATIONS.map((nation): JurisdictionRecord => {
    // A nation is the union of its regions; listing their polygons side by side answers "which one holds this point".
    const parts = regions.features
      .filter((r) => r.properties.nation === nation)
      .flatMap((r) => r.geometry.coordinates);
    return {
      id: nationId(nation),
      name: nation,
      region: "state",
      country: "GBR",
      code: nation,
      parentId: UK_ID,
      geometry: { type: "MultiPolygon", coordinates: parts },
      source: "natural-earth",
    };
  });
  return [
    {
      id: UK_ID,
      name: "United Kingdom",
      region: "federal",
      country: "GBR",
      code: "GB",
      parentId: null,
      geometry: tidy(kingdom.geometry),
      source: "world-atlas",
    },
    ...nations,
    ...regions.features.map(
      (r): JurisdictionRecord => ({
        id: ukRegionId(r.properties.fid),
        name: r.properties.name,
        region: "county",
        country: "GBR",
        code: r.properties.code,
        parentId: nationId(r.properties.nation),
        geometry: r.geometry,
        source: "natural-earth",
      }),
    ),
  ];
}

/** Coordinates to 5 decimals (about a meter), without the repeats that rounding leaves. */
function tidy(geometry: Geometry): Geometry {
  const ring = (positions: Position[]): Position[] => {
    const out: Position[] = [];
    for (const [lng, lat] of positions) {
      const p: Position = [Math.round(lng * 1e5) / 1e5, Math.round(lat * 1e5) / 1e5];
      const last = out[out.length - 1];
      if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
    }
    return out;
  };
  if (geometry.type === "Polygon") return { type: "Polygon", coordinates: geometry.coordinates.map(ring) };
  if (geometry.type === "MultiPolygon")
    return { type: "MultiPolygon", coordinates: geometry.coordinates.map((p) => p.map(ring)) };
  return geometry;
}
