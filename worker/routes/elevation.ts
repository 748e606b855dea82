import { createRoute, z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import { createRouter } from "../app";
import { carpetJson } from "../domain/elevation/carpet";
import type { PointsInput } from "../domain/elevation/points";
import type { AppEnv } from "../env";
import { toHex } from "../lib/hash";
import { jsonBody, responses, security } from "../lib/openapi";
import { carpetOver, type ElevationSource, elevationsAt, pathProfile } from "../services/elevation";

const points = (description: string, example: string) =>
  z.string().openapi({ description, example, param: { name: "points", in: "query" } });

/** The POST forms' `points`: pairs, or the GET forms' string, for lists longer than a URL holds. */
const pointsBody = (description: string, example: PointsInput) =>
  z.union([z.string(), z.array(z.array(z.number()))]).openapi({
    description: `${description}: [[lat, lng], …] or the GET form's comma-separated string`,
    example,
  });
const Interpolation = z
  .enum(["bilinear", "nearest"])
  .optional()
  .openapi({ description: "bilinear (default) or the nearest sample" });

const Elevation = z.number().int().nullable().openapi({ description: "meters (EGM96); null: no data" });
const LatLng = z.tuple([z.number(), z.number()]).openapi({ description: "[latitude, longitude]" });

const ele = createRoute({
  method: "get",
  path: "/elevation/v1/ele",
  tags: ["Elevation"],
  summary: "Ground elevation at each point, bilinear between the four surrounding samples",
  security,
  request: {
    query: z.object({
      // Cross Mountain, Tennessee, and Gothenburg: both in the embedded elevation.
      points: points("lat,lng pairs, comma-separated; at most 10,000 points", "36.19833,-84.23056,57.7,11.9"),
      interpolation: Interpolation,
    }),
  },
  responses: responses(
    z.array(Elevation).openapi({ example: [1074, 13] }),
    "One elevation per point, in order",
  ),
});

const elePost = createRoute({
  method: "post",
  path: "/elevation/v1/ele",
  tags: ["Elevation"],
  summary: "As GET /elevation/v1/ele, with the points in a JSON body (for lists longer than a URL holds)",
  security,
  request: {
    body: jsonBody(
      z
        .object({
          points: pointsBody("at most 10,000 points", [
            [36.19833, -84.23056],
            [57.7, 11.9],
          ]),
          interpolation: Interpolation,
        })
        .openapi("ElevationPoints"),
    ),
  },
  responses: responses(
    z.array(Elevation).openapi({ example: [1074, 13] }),
    "One elevation per point, in order",
  ),
});

const Carpet = z
  .object({
    bounds: z.object({ sw: LatLng, ne: LatLng }),
    stats: z.object({ max: z.number(), min: z.number(), avg: z.number() }),
    carpet: z.array(z.array(Elevation)).openapi({ description: "rows south to north, each west to east" }),
  })
  .openapi("ElevationCarpet");

const carpet = createRoute({
  method: "get",
  path: "/elevation/v1/ele/carpet",
  tags: ["Elevation"],
  summary: "Elevation samples over a rectangle, inflated outward to whole samples",
  security,
  request: {
    query: z.object({
      points: points("south-west corner lat,lng then north-east corner lat,lng", "57.7,11.9,57.75,11.95"),
    }),
  },
  responses: responses(Carpet, "The samples, their bounds and stats; 404 when none has data"),
});

const carpetPost = createRoute({
  method: "post",
  path: "/elevation/v1/ele/carpet",
  tags: ["Elevation"],
  summary: "As GET /elevation/v1/ele/carpet, with the corners in a JSON body",
  security,
  request: {
    body: jsonBody(
      z.object({
        points: pointsBody("south-west corner, then north-east corner", [
          [57.7, 11.9],
          [57.75, 11.95],
        ]),
      }),
    ),
  },
  responses: responses(Carpet, "The samples, their bounds and stats; 404 when none has data"),
});

const Segment = z
  .object({
    from: LatLng,
    to: LatLng,
    step: LatLng.openapi({ description: "[Δlat, Δlng] between consecutive samples" }),
    profile: z.array(Elevation),
  })
  .openapi("ElevationPathSegment");

const path = createRoute({
  method: "get",
  path: "/elevation/v1/ele/path",
  tags: ["Elevation"],
  summary: "Elevation profile along a path at the finest available step, one segment per leg",
  security,
  request: {
    query: z.object({ points: points("lat,lng milestones, comma-separated", "57.7,11.9,57.72,11.95") }),
  },
  responses: responses(z.array(Segment), "One segment per pair of consecutive milestones"),
});

const pathPost = createRoute({
  method: "post",
  path: "/elevation/v1/ele/path",
  tags: ["Elevation"],
  summary: "As GET /elevation/v1/ele/path, with the milestones in a JSON body",
  security,
  request: {
    body: jsonBody(
      z.object({
        points: pointsBody("milestones", [
          [57.7, 11.9],
          [57.72, 11.95],
        ]),
      }),
    ),
  },
  responses: responses(z.array(Segment), "One segment per pair of consecutive milestones"),
});

/** JSON (UTF-8) known to spell a T. */
type JsonBytes<T> = Uint8Array<ArrayBuffer> & { readonly __json?: T };

function source(c: Context<AppEnv>): ElevationSource {
  return { bucket: c.env.ELEVATION, waitUntil: (p) => c.executionCtx.waitUntil(p) };
}

/**
 * The carpet's whole JSend body as bytes: its rows (up to 1024² samples) are written straight from
 * the sampled integers, never made into nested arrays for JSON.stringify. Same bytes as
 * success(c, { bounds, stats, carpet }).
 */
async function carpetOf(c: Context<AppEnv>, input: PointsInput): Promise<JsonBytes<z.infer<typeof Carpet>>> {
  const { bounds, stats, values } = await carpetOver(source(c), input);
  const head = JSON.stringify({ status: "success", data: { bounds, stats } });
  // head ends in "}}": the rows go in as the data object's last member.
  return carpetJson(values, `${head.slice(0, -2)},"carpet":`, "}}") as JsonBytes<z.infer<typeof Carpet>>;
}

/**
 * A JSend success body already written as JSON (UTF-8), typed as the JSON it spells. A GET answer
 * carries its ETag, computed here from the bytes as hono/etag would (worker/middleware/cache.ts):
 * the same value, but the middleware then need not clone the body to digest it, and the answer
 * keeps its Content-Length instead of going out chunked.
 */
async function successJson<T>(c: Context<AppEnv>, json: JsonBytes<T>) {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (c.req.method === "GET") headers.ETag = await bodyEtag(json);
  return c.body(json, 200, headers) as unknown as TypedResponse<{ status: "success"; data: T }, 200, "json">;
}

/** success(c, data), written as successJson does. */
function successOf<T>(c: Context<AppEnv>, data: T) {
  const json = new TextEncoder().encode(JSON.stringify({ status: "success", data }));
  return successJson(c, json as JsonBytes<T>);
}

/** hono/etag's digest: SHA-1 over the body in 256 KiB pieces, each after the digest so far. */
const ETAG_PIECE_BYTES = 262_144;

async function bodyEtag(body: Uint8Array<ArrayBuffer>): Promise<string> {
  let digest: Uint8Array<ArrayBuffer> | undefined;
  for (let at = 0; at < body.byteLength; at += ETAG_PIECE_BYTES) {
    const piece = body.subarray(at, at + ETAG_PIECE_BYTES);
    let input = piece;
    if (digest) {
      input = new Uint8Array(digest.byteLength + piece.byteLength);
      input.set(digest);
      input.set(piece, digest.byteLength);
    }
    digest = new Uint8Array(await crypto.subtle.digest("SHA-1", input));
  }
  return `"${toHex(digest ?? new Uint8Array())}"`;
}

export const elevationRoutes = createRouter()
  .openapi(ele, async (c) => {
    const query = c.req.valid("query");
    return successOf(c, await elevationsAt(source(c), query.points, query.interpolation));
  })
  .openapi(elePost, async (c) => {
    const body = c.req.valid("json");
    return successOf(c, await elevationsAt(source(c), body.points, body.interpolation));
  })
  .openapi(carpet, async (c) => successJson(c, await carpetOf(c, c.req.valid("query").points)))
  .openapi(carpetPost, async (c) => successJson(c, await carpetOf(c, c.req.valid("json").points)))
  .openapi(path, async (c) => successOf(c, await pathProfile(source(c), c.req.valid("query").points)))
  .openapi(pathPost, async (c) => successOf(c, await pathProfile(source(c), c.req.valid("json").points)));
