import basemapsPackage from "@protomaps/basemaps/package.json" with { type: "json" };
import maplibrePackage from "maplibre-gl/package.json" with { type: "json" };

/**
 * Where the pages' map libraries are served (by Workers Static Assets, copied from node_modules by
 * tools/lib/staticAssets.ts; the worker never bundles them): under each library's version, so a
 * browser may keep them for good.
 */
export const MAPLIBRE_ASSETS = `/maps/assets/maplibre-gl-${maplibrePackage.version}`;
export const PROTOMAPS_BASEMAPS_ASSETS = `/maps/assets/protomaps-basemaps-${basemapsPackage.version}`;

/** Where the worker serves the vector basemap (routes/basemap.ts), which the pages' script reads. */
export const BASEMAP_PATH = "/maps/v1/basemap";
