import type { MapLayers } from "../../domain/map/layers";
import { greyPng, pngDataUrl } from "../../lib/png";

/**
 * The shared map of the deep-link and live pages as one server-rendered SVG: land and boundaries,
 * the ground (hillshade and contours from our elevation tiles), airspace areas (advisories in their color, other airspace in grey), facility-map cells with their
 * ceilings, airports, the flight's area, route or point, the advisory markers, a scale bar and a
 * north arrow. No scripts and no external assets; the live page adds its track in `#track`.
 */

export const ADVISORY_FILL: Record<string, string> = {
  green: "#1a7f37",
  yellow: "#b58a00",
  orange: "#c2410c",
  red: "#b91c1c",
};
const NEUTRAL = "#6b7280";

export interface MapDrawing {
  layers: MapLayers;
  area: string;
  route?: string;
  point?: { x: number; y: number };
  markers: { x: number; y: number; offMap: boolean; color: string; name: string }[];
  title: string;
  id?: string;
  className?: string;
  /** An empty `<g id="track">` above the area, for the live page's script. */
  track?: boolean;
  /** The id of the scale bar's label. */
  scaleId?: string;
}

export function renderMapSvg(m: MapDrawing): string {
  const { layers } = m;
  const { width, height } = layers;
  const out: string[] = [];
  const attrs = [
    m.id ? `id="${esc(m.id)}"` : "",
    m.className ? `class="${esc(m.className)}"` : "",
    `viewBox="0 0 ${width} ${height}"`,
    `role="img"`,
    `aria-labelledby="${esc(m.id ?? "map")}-title"`,
    `preserveAspectRatio="xMidYMid meet"`,
    `font-family="system-ui,sans-serif"`,
  ]
    .filter(Boolean)
    .join(" ");
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" ${attrs}>`);
  out.push(`<title id="${esc(m.id ?? "map")}-title">${esc(m.title)}</title>`);
  out.push(`<rect width="${width}" height="${height}" fill="#e6ecf1"/>`);
  const basemap = layers.basemap;
  if (basemap) {
    out.push(`<g class="basemap">`);
    for (const t of basemap.tiles)
      out.push(
        `<image href="${esc(t.href)}" x="${t.x}" y="${t.y}" width="${t.width}" height="${t.height}" preserveAspectRatio="none"/>`,
      );
    out.push("</g>");
  }
  if (layers.boundaries.length > 0) {
    // Land over the neutral background, so coasts show; counties thin above states.
    const ordered = [...layers.boundaries].sort((a, b) => regionOrder(a.region) - regionOrder(b.region));
    out.push(`<g class="boundaries" fill-rule="evenodd">`);
    for (const b of ordered) {
      const county = b.region === "county";
      // Over a basemap, outlines only: its own land and water show through.
      out.push(
        `<path class="boundary ${esc(b.region)}" d="${b.d}" fill="${county || basemap ? "none" : "#f7f5ee"}" stroke="${county ? "#b8b2a3" : "#8a8270"}" stroke-width="${county ? 0.7 : 1.3}"${county ? ' stroke-dasharray="4 3"' : ""}><title>${esc(b.name)}</title></path>`,
      );
    }
    out.push("</g>");
  }
  if (layers.terrain) out.push(terrainSvg(layers.terrain));
  if (layers.cells.length > 0) {
    out.push(`<g class="facility-cells" stroke="#fff" stroke-width="0.5">`);
    for (const c of layers.cells) {
      const fill = ADVISORY_FILL[c.color ?? ""] ?? (c.ceilingFt === 0 ? "#b91c1c" : "#c2410c");
      out.push(
        `<rect x="${c.x}" y="${c.y}" width="${c.w}" height="${c.h}" fill="${fill}" fill-opacity="${c.color ? 0.3 : 0.12}"><title>Facility map: ${c.ceilingFt} ft</title></rect>`,
      );
      if (c.label)
        out.push(
          `<text x="${round(c.x + c.w / 2)}" y="${round(c.y + c.h / 2 + 4)}" font-size="11" text-anchor="middle" fill="#7c2d12" stroke="none">${c.label}</text>`,
        );
    }
    out.push("</g>");
  }
  if (layers.areas.length > 0) {
    out.push(`<g class="airspace" fill-rule="evenodd">`);
    for (const a of layers.areas) {
      const color = ADVISORY_FILL[a.color ?? ""] ?? NEUTRAL;
      out.push(
        `<path class="airspace-area${a.color ? ` advisory ${esc(a.color)}` : ""}" d="${a.d}" fill="${color}" fill-opacity="${a.color ? 0.16 : 0.05}" stroke="${color}" stroke-width="${a.color ? 1.5 : 1}"${a.color ? "" : ' stroke-dasharray="5 3"'}><title>${esc(a.name)} (${esc(a.type.replace(/_/g, " "))}${a.color ? `, ${esc(a.color)}` : ""})</title></path>`,
      );
    }
    out.push("</g>");
  }
  if (layers.airports.length > 0) {
    out.push(`<g class="airports" font-size="11" fill="#1f2937">`);
    for (const a of layers.airports) {
      const symbol =
        a.type === "heliport"
          ? `<circle cx="${a.x}" cy="${a.y}" r="4" fill="#fff" stroke="#1f2937" stroke-width="1.2"/>`
          : `<path d="M${a.x - 5} ${a.y}h10M${a.x} ${a.y - 5}v10" stroke="#1f2937" stroke-width="2"/><circle cx="${a.x}" cy="${a.y}" r="3" fill="#1f2937"/>`;
      out.push(
        `<g class="airport ${a.type}"><title>${esc(a.name)}</title>${symbol}<text x="${round(a.x + 7)}" y="${round(a.y - 5)}" paint-order="stroke" stroke="#fff" stroke-width="3">${esc(a.label)}</text></g>`,
      );
    }
    out.push("</g>");
  }
  out.push(
    `<path class="flight-area" d="${m.area}" fill="#2563eb" fill-opacity="0.22" stroke="#1d4ed8" stroke-width="2" fill-rule="evenodd"/>`,
  );
  if (m.route)
    out.push(`<path d="${m.route}" fill="none" stroke="#1e3a8a" stroke-width="3" stroke-dasharray="6 4"/>`);
  if (m.point) out.push(`<circle cx="${m.point.x}" cy="${m.point.y}" r="5" fill="#1e3a8a"/>`);
  if (m.track) out.push(`<g id="track"></g>`);
  for (const k of m.markers) {
    const fill = ADVISORY_FILL[k.color] ?? "#555";
    out.push(
      `<circle cx="${k.x}" cy="${k.y}" r="7" fill="${k.offMap ? "#fff" : fill}" stroke="${fill}" stroke-width="3"><title>${esc(k.name)} (${esc(k.color)})${k.offMap ? ", beyond the map edge" : ""}</title></circle>`,
    );
  }
  // Scale bar bottom left, north arrow top right, each on a light plate to stay readable.
  const s = layers.scale;
  const y = height - 14;
  out.push(
    `<g class="scale"><rect x="8" y="${y - 22}" width="${round(s.pixels + 24)}" height="30" rx="3" fill="#fff" fill-opacity="0.8"/><path d="M20 ${y - 5}v5h${s.pixels}v-5" fill="none" stroke="#111" stroke-width="2"/><text${m.scaleId ? ` id="${esc(m.scaleId)}"` : ""} x="20" y="${y - 9}" font-size="12" fill="#111">${esc(s.label)}</text></g>`,
  );
  if (basemap)
    out.push(
      `<text class="attribution" x="${width - 4}" y="${height - 4}" font-size="10" text-anchor="end" fill="#111" paint-order="stroke" stroke="#fff" stroke-width="3">${esc(basemap.attribution)}</text>`,
    );
  out.push(
    `<g class="north" transform="translate(${width - 22} 30)"><circle r="14" fill="#fff" fill-opacity="0.8"/><path d="M0 -10L6 8L0 4L-6 8Z" fill="#111"/><text y="-16" font-size="10" text-anchor="middle" fill="#111">N</text></g>`,
  );
  out.push("</svg>");
  return out.join("");
}

/**
 * The hillshade as a small greyscale PNG multiplied over the land (white leaves it as it is), scaled
 * smoothly by the browser: one pixel a sample is a few KiB where SVG cells would be thousands of
 * elements. Contours above it, index contours heavier.
 */
function terrainSvg(t: NonNullable<MapLayers["terrain"]>): string {
  const { image } = t;
  const href = pngDataUrl(greyPng(t.cols, t.rows, t.shade));
  const lines = t.contours
    .map(
      (c) =>
        `<path class="contour${c.major ? " major" : ""}" d="${c.d}" stroke-width="${c.major ? 1.1 : 0.6}"><title>${c.level} ${t.unit}</title></path>`,
    )
    .join("");
  return `<g class="terrain" data-interval="${t.interval}"><image class="hillshade" href="${href}" x="${image.x}" y="${image.y}" width="${image.width}" height="${image.height}" preserveAspectRatio="none" style="mix-blend-mode:multiply"/><g class="contours" fill="none" stroke="#8a5a2b" stroke-opacity="0.55">${lines}</g></g>`;
}

export interface LegendEntry {
  /** A CSS color for the swatch, or none for a text-only line. */
  color?: string;
  /** A dashed or outlined swatch instead of a filled one. */
  style?: "fill" | "line" | "dashed";
  text: string;
}

/**
 * What the map shows, one entry a layer actually drawn; pages append their own (the track) and
 * marks such as the synthetic-data one. An HTML list, so it reads without the image.
 */
export function mapLegend(layers: MapLayers): LegendEntry[] {
  const entries: LegendEntry[] = [{ color: "#2563eb", text: "flight area (with buffer)" }];
  const t = layers.terrain;
  entries.push(
    t
      ? {
          color: "#8a5a2b",
          style: "line",
          text: `ground: hillshade and contours every ${t.interval} ${t.unit} (${t.low}–${t.high} ${t.unit}), from our elevation data`,
        }
      : { text: "no elevation data loaded under this view: no ground relief" },
  );
  if (layers.basemap) entries.push({ text: `basemap: ${layers.basemap.attribution}` });
  if (layers.boundaries.length > 0) entries.push({ color: "#8a8270", style: "line", text: "boundaries" });
  if (layers.areas.length > 0)
    entries.push({ color: NEUTRAL, style: "dashed", text: "airspace (advisories in their color)" });
  if (layers.cells.length > 0)
    entries.push({ color: "#c2410c", text: "facility map cells: ceiling in ft above ground" });
  if (layers.airports.length > 0)
    entries.push({ color: "#1f2937", style: "line", text: "airports and heliports" });
  return entries;
}

export function renderLegend(entries: LegendEntry[], id = "map-legend"): string {
  const items = entries
    .map((e) => {
      const swatch = e.color
        ? `<span aria-hidden="true" style="display:inline-block;width:14px;height:${e.style === "fill" || !e.style ? 10 : 0}px;margin-right:6px;vertical-align:middle;${
            e.style === "fill" || !e.style
              ? `background:${e.color};opacity:.6`
              : `border-top:2px ${e.style === "dashed" ? "dashed" : "solid"} ${e.color}`
          }"></span>`
        : "";
      return `<li>${swatch}${esc(e.text)}</li>`;
    })
    .join("");
  return `<ul id="${esc(id)}" class="map-legend" style="list-style:none;margin:4px 0 0;padding:0;font-size:12px;color:#5b6470">${items}</ul>`;
}

function regionOrder(region: string): number {
  return region === "federal" ? 0 : region === "state" ? 1 : 2;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
