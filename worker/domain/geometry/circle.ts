import circle from "@turf/circle";
import type { Polygon, Position } from "../geojson";

/**
 * A circle of `radiusM` meters as the 32-sided polygon the interfaces' circles become (ED-269 and
 * ED-318 zones, F3548 volumes).
 */
export function circlePolygon(center: Position, radiusM: number): Polygon {
  return circle(center, radiusM / 1000, { steps: 32, units: "kilometers" }).geometry as Polygon;
}
