import { type CarpetValues, carpetBounds, carpetStats, sampleCarpet } from "../domain/elevation/carpet";
import {
  PointsError,
  type PointsInput,
  parsePath,
  parseRectangle,
  positionsFrom,
} from "../domain/elevation/points";
import { pathPositions, planCarpet, planPath, sampleElevations } from "../domain/elevation/sampling";
import { ApiError, badRequest } from "../lib/errors";
import { chunkLoader, coverage } from "../store/elevationTiles";

/**
 * Elevations from the tiles in R2 (`/elevation/v1/ele`, `/carpet`, `/path`): the request's points
 * parsed, the covering tiles found, and only the chunks a request needs read.
 */

/** Where the tiles are, and how to keep the coverage manifest's refresh alive past the answer. */
export interface ElevationSource {
  bucket: R2Bucket;
  waitUntil: (p: Promise<unknown>) => void;
}

/** A PointsError anywhere in serving a request is the client's `points`: 400 naming it. */
async function forPoints<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PointsError) throw badRequest("points", err.message);
    throw err;
  }
}

/** The elevation of each point, in meters. */
export async function elevationsAt(
  source: ElevationSource,
  input: PointsInput,
  mode: "bilinear" | "nearest" = "bilinear",
) {
  const { lats, lngs } = await forPoints(() => positionsFrom(input));
  const covered = await coverage(source.bucket, source.waitUntil);
  return forPoints(() => sampleElevations(covered, lats, lngs, mode, chunkLoader(source.bucket)));
}

/** A rectangle's grid of elevations with its bounds and statistics; 404 where no tile has data. */
export async function carpetOver(
  source: ElevationSource,
  input: PointsInput,
): Promise<{
  bounds: ReturnType<typeof carpetBounds>;
  stats: NonNullable<ReturnType<typeof carpetStats>>;
  values: CarpetValues;
}> {
  const { sw, ne } = await forPoints(() => parseRectangle(input));
  const covered = await coverage(source.bucket, source.waitUntil);
  const plan = planCarpet(covered, sw, ne);
  if (!plan) throw noData();
  const values = await forPoints(() => sampleCarpet(covered, plan, chunkLoader(source.bucket)));
  const stats = carpetStats(values);
  if (!stats) throw noData();
  return { bounds: carpetBounds(plan), stats, values };
}

/** The elevation profile between consecutive milestones: one segment per pair. */
export async function pathProfile(source: ElevationSource, input: PointsInput) {
  const milestones = await forPoints(() => parsePath(input));
  const covered = await coverage(source.bucket, source.waitUntil);
  const segments = await forPoints(() => planPath(covered, milestones));
  const { lats, lngs } = pathPositions(segments);
  const values = await forPoints(() =>
    sampleElevations(covered, lats, lngs, "bilinear", chunkLoader(source.bucket)),
  );
  let at = 0;
  return segments.map(({ from, to, step, samples }) => {
    at += samples;
    return { from, to, step, profile: values.slice(at - samples, at) };
  });
}

function noData(): ApiError {
  return new ApiError(404, "No elevation data anywhere in this rectangle", [
    { name: "points", message: "the rectangle lies outside every loaded elevation tile" },
  ]);
}
