import { z } from "@hono/zod-openapi";

/** Response shapes several areas share: GeoJSON as the service writes it, ids of deleted records. */

/** GeoJSON positions are [longitude, latitude]. */
const Position = z
  .array(z.number())
  .min(2)
  .max(3)
  .openapi({ example: [-84.121, 36.3] });

export const PointGeometry = z
  .object({ type: z.literal("Point"), coordinates: Position })
  .openapi("Point", { example: { type: "Point", coordinates: [-84.119, 36.3015] } });

export const LineStringGeometry = z
  .object({ type: z.literal("LineString"), coordinates: z.array(Position) })
  .openapi("LineString", {
    example: {
      type: "LineString",
      coordinates: [
        [-84.121, 36.3],
        [-84.117, 36.303],
      ],
    },
  });

const JACKSBORO_RIDGE = [
  [
    [-84.121, 36.3],
    [-84.117, 36.3],
    [-84.117, 36.303],
    [-84.121, 36.303],
    [-84.121, 36.3],
  ],
];

export const PolygonGeometry = z
  .object({ type: z.literal("Polygon"), coordinates: z.array(z.array(Position)) })
  .openapi("Polygon", {
    description: "GeoJSON Polygon: rings of [longitude, latitude], the first the outer boundary",
    example: { type: "Polygon", coordinates: JACKSBORO_RIDGE },
  });

export const MultiPolygonGeometry = z
  .object({ type: z.literal("MultiPolygon"), coordinates: z.array(z.array(z.array(Position))) })
  .openapi("MultiPolygon");

/** Any geometry the service writes back (a plan keeps the one it was given). */
export const GeometryView = z
  .union([PointGeometry, LineStringGeometry, PolygonGeometry, MultiPolygonGeometry])
  .openapi("GeometryView", { description: "GeoJSON geometry; positions are [longitude, latitude]" });

export const Deleted = z
  .object({ id: z.string().openapi({ example: "flight|9f3c0a8e2b" }) })
  .openapi("Deleted", { description: "The id of the record deleted" });

/** ISO 8601 time in UTC as the service writes it. */
export const isoTimeView = (description?: string) =>
  z.string().openapi({ format: "date-time", example: "2026-11-21T10:00:00.000Z", description });

export const Paging = z
  .object({
    limit: z.number().int(),
    total: z.number().int(),
    next: z.string().nullable().openapi({ description: "Cursor of the next page; null on the last" }),
  })
  .openapi("Paging");
