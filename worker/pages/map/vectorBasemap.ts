import { scriptHashSource } from "../scriptHash";
import { BASEMAP_PATH, MAPLIBRE_ASSETS, PROTOMAPS_BASEMAPS_ASSETS } from "./assets";

/**
 * The vector basemap under the shared map, as progressive enhancement: the page carries the
 * server-drawn SVG, and this script, where WebGL works, loads MapLibre GL (a static asset), draws
 * the operator's PMTiles basemap (GET /maps/v1/basemap.json, Protomaps' "light" layers for the
 * source layers the archive holds) over the
 * SVG's exact box, and only once it has drawn lets it show through the SVG, whose own ground
 * (background, land, hillshade, raster tiles) it hides; contours, airspace, the flight's area, the
 * track and the markers stay on top. Without JavaScript, without WebGL, or when the basemap fails,
 * the SVG stays as it is. The map is not interactive, so it stays aligned with the SVG. Without a
 * `lang`, Protomaps' layers have no labels: no glyphs or sprites to load.
 */

/** A constant, so its hash allows it under a Content-Security-Policy without 'unsafe-inline'. */
export const VECTOR_BASEMAP_SCRIPT = `
const svg = document.querySelector("svg[data-vector-basemap]");
const gl = document.createElement("canvas").getContext("webgl2") || document.createElement("canvas").getContext("webgl");
if (svg && gl) {
  const [west, south, east, north] = svg.dataset.vectorBasemap.split(",").map(Number);
  const css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = "${MAPLIBRE_ASSETS}/maplibre-gl.css";
  document.head.append(css);
  const holder = document.createElement("div");
  holder.className = "vector-basemap-holder";
  svg.before(holder);
  const container = document.createElement("div");
  container.className = "vector-basemap";
  holder.append(container, svg);
  holder.dataset.state = "loading";
  try {
    const [maplibre, protomaps, tileJson] = await Promise.all([
      import("${MAPLIBRE_ASSETS}/maplibre-gl.mjs"),
      import("${PROTOMAPS_BASEMAPS_ASSETS}/basemaps.mjs"),
      fetch("${BASEMAP_PATH}.json").then((r) => (r.ok ? r.json() : Promise.reject(new Error("basemap " + r.status)))),
    ]);
    // Only the layers the archive holds: an extract has them all, a smaller archive some.
    const held = new Set(tileJson.vector_layers.map((l) => l.id));
    const flavor = protomaps.namedFlavor("light");
    const layers = protomaps
      .layers("protomaps", flavor)
      .filter((l) => !l["source-layer"] || held.has(l["source-layer"]));
    // Islands an OpenStreetMap extract draws by their coastline lie inside the sea's polygon:
    // land over the water, under the roads.
    const water = layers.findIndex((l) => l.id === "water");
    if (water >= 0 && held.has("earth"))
      layers.splice(water + 1, 0, {
        id: "islands", type: "fill", source: "protomaps", "source-layer": "earth",
        filter: ["==", ["get", "kind"], "island"], paint: { "fill-color": flavor.earth },
      });
    const { tiles, minzoom, maxzoom, bounds, attribution } = tileJson;
    const map = new maplibre.Map({
      container,
      style: {
        version: 8,
        sources: { protomaps: { type: "vector", tiles, minzoom, maxzoom, bounds, attribution } },
        layers,
      },
      bounds: [[west, south], [east, north]],
      interactive: false,
      // On a phone the credits fold into a button, so they never cover the scale bar.
      attributionControl: { compact: svg.getBoundingClientRect().width < 600 },
      fadeDuration: 0,
    });
    map.on("error", (event) => console.warn("basemap:", event.error && event.error.message));
    map.once("load", () => {
      // MapLibre opens folded credits unfolded: fold them, the button shows them on a tap.
      container.querySelector(".maplibregl-compact-show")?.classList.remove("maplibregl-compact-show");
      svg.classList.add("over-basemap");
      holder.dataset.state = "drawn";
    });
  } catch (err) {
    holder.dataset.state = "failed";
    console.warn("basemap:", err);
  }
}
`;

/** Hides the MapLibre box until it has drawn; then the SVG's ground gives way to it. */
const STYLE = `<style>
.vector-basemap-holder{position:relative}
.vector-basemap-holder>svg{position:relative}
.vector-basemap{position:absolute;inset:0;visibility:hidden}
.vector-basemap-holder[data-state=drawn]>.vector-basemap{visibility:visible}
svg.over-basemap{pointer-events:none;background:transparent}
svg.over-basemap>*{pointer-events:visiblePainted}
svg.over-basemap .background,svg.over-basemap .basemap,svg.over-basemap .attribution{display:none}
svg.over-basemap .boundary{fill:none}
</style>`;

/** What follows the map's SVG when a vector basemap is configured. */
export function vectorBasemapMarkup(): string {
  return `${STYLE}<script type="module">${VECTOR_BASEMAP_SCRIPT}</script>`;
}

/** The script's CSP source, `'sha256-…'`. */
export function vectorBasemapScriptSource(): Promise<string> {
  return scriptHashSource(VECTOR_BASEMAP_SCRIPT);
}

export interface MapPageSources {
  script: string;
  style: string;
  connect: string;
  worker: string;
}

/**
 * The Content-Security-Policy sources of a page with the shared map. With a vector basemap: the
 * libraries from this origin, MapLibre's Web Worker (from this origin, or a blob: that imports it),
 * the TileJSON and tiles, and its stylesheet. `ownScripts` are the page's own inline scripts (their
 * text), allowed by their hashes like this one's; never 'unsafe-inline'.
 */
export async function mapPageSources(
  vectorBasemap: boolean,
  ownScripts: readonly string[],
): Promise<MapPageSources> {
  const own = (await Promise.all(ownScripts.map(scriptHashSource))).join(" ");
  if (!vectorBasemap)
    return {
      script: own || "'none'",
      style: "'unsafe-inline'",
      connect: own ? "'self'" : "'none'",
      worker: "'none'",
    };
  return {
    script: ["'self'", own, await vectorBasemapScriptSource()].filter(Boolean).join(" "),
    style: "'self' 'unsafe-inline'",
    connect: "'self'",
    worker: "'self' blob:",
  };
}
