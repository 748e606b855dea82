import { createRouter } from "../app";
import { readTileAddress } from "../domain/map/tileAddress";
import { ApiError, problemError } from "../lib/errors";
import { publicOrigin } from "../lib/publicOrigin";
import { BASEMAP_PATH } from "../pages/map/assets";
import { basemapTile, basemapTileJson } from "../services/basemap";

/**
 * The operator's vector basemap for the pages' MapLibre map: TileJSON and Mapbox Vector Tiles read
 * from a PMTiles archive in R2 (services/basemap.ts). Keyless like the pages that use it, so limited
 * per client address (middleware/publicRateLimit.ts); cacheable (index.ts).
 */

export const MVT_TYPE = "application/vnd.mapbox-vector-tile";

export const basemapRoutes = createRouter()
  .get(`${BASEMAP_PATH}.json`, async (c) => {
    return c.json(await basemapTileJson(c.env, `${publicOrigin(c)}${BASEMAP_PATH}`));
  })
  .get(`${BASEMAP_PATH}/:z/:x/:y`, async (c) => {
    const address = readTileAddress(c.req.param("z"), c.req.param("x"), c.req.param("y"));
    if (!address.ok) throw problemError(address.problems);
    const tile = await basemapTile(c.env, address.value);
    const { z, x, y } = address.value;
    if (!tile) throw new ApiError(404, `The basemap has no tile ${z}/${x}/${y}`);
    return c.body(tile, 200, { "Content-Type": MVT_TYPE });
  });
