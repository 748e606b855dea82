import type { SourceFeature } from "../formats/source";

/**
 * The ArcGIS REST API's feature-layer query as the FAA's FeatureServer layers answer it: pages of
 * GeoJSON (`resultOffset`/`resultRecordCount`, ordered by OBJECTID so pages do not shift, with
 * `exceededTransferLimit` while more remain), statistics for a cheap change check, and error pages
 * that come with HTTP 200 as `{"error": {"code", "message", "details"}}`.
 */

/** An answer that cannot be used, with the URL it came from: the sync's error names both. */
export class FeedError extends Error {
  constructor(
    message: string,
    readonly url: string,
  ) {
    super(`${message} (${url})`);
  }
}

const query = (layerUrl: string, params: Record<string, string>) =>
  `${layerUrl.replace(/\/+$/, "")}/query?${new URLSearchParams(params)}`;

/** One page of every feature with every field, in WGS 84. */
export function pageUrl(layerUrl: string, offset: number, count: number): string {
  return query(layerUrl, {
    where: "1=1",
    outFields: "*",
    outSR: "4326",
    orderByFields: "OBJECTID ASC",
    resultOffset: String(offset),
    resultRecordCount: String(count),
    f: "geojson",
  });
}

/** How many features the layer holds and when the last was edited (`LAST_EDIT`): one small answer. */
export function statisticsUrl(layerUrl: string, editField: string): string {
  return query(layerUrl, {
    where: "1=1",
    outStatistics: JSON.stringify([
      { statisticType: "count", onStatisticField: "OBJECTID", outStatisticFieldName: "record_count" },
      { statisticType: "max", onStatisticField: editField, outStatisticFieldName: "last_edit" },
    ]),
    f: "json",
  });
}

/** The layer's description, whose `editingInfo.lastEditDate` changes with every edit of its data. */
export function layerInfoUrl(layerUrl: string): string {
  return `${layerUrl.replace(/\/+$/, "")}?f=json`;
}

/** The answer's JSON, or a FeedError for ArcGIS's error page (HTTP 200 with `error`). */
export function arcGisAnswer(json: unknown, url: string): Record<string, unknown> {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new FeedError("not an ArcGIS answer (expected a JSON object)", url);
  const { error } = json as { error?: { code?: unknown; message?: unknown; details?: unknown } };
  if (error) {
    const details =
      Array.isArray(error.details) && error.details.length > 0 ? `: ${error.details.join("; ")}` : "";
    throw new FeedError(
      `ArcGIS error ${error.code ?? "?"} "${error.message ?? "no message"}"${details}`,
      url,
    );
  }
  return json as Record<string, unknown>;
}

/** A page's features, and whether the layer holds more after them. */
export function pageOf(json: unknown, url: string): { features: SourceFeature[]; more: boolean } {
  const answer = arcGisAnswer(json, url);
  if (answer.type !== "FeatureCollection" || !Array.isArray(answer.features))
    throw new FeedError("not a GeoJSON FeatureCollection (was f=geojson honoured?)", url);
  // f=geojson carries the flag under `properties`; f=json at the top.
  const flag =
    (answer.properties as { exceededTransferLimit?: unknown } | undefined)?.exceededTransferLimit ??
    answer.exceededTransferLimit;
  const more = flag === true;
  if (more && answer.features.length === 0)
    throw new FeedError("exceededTransferLimit on an empty page: paging would never end", url);
  return { features: answer.features as SourceFeature[], more };
}

/** `<count>:<last edit>` from the statistics answer: equal versions mean nothing changed. */
export function versionFromStatistics(json: unknown, url: string): string {
  const answer = arcGisAnswer(json, url);
  const attributes = (answer.features as { attributes?: Record<string, unknown> }[] | undefined)?.[0]
    ?.attributes;
  const count = attributes?.record_count ?? attributes?.RECORD_COUNT;
  const lastEdit = attributes?.last_edit ?? attributes?.LAST_EDIT;
  if (typeof count !== "number") throw new FeedError("statistics answer without record_count", url);
  return `${count}:${lastEdit ?? "none"}`;
}

/** The layer's last data edit from its description. */
export function versionFromLayerInfo(json: unknown, url: string): string {
  const answer = arcGisAnswer(json, url);
  const info = answer.editingInfo as { lastEditDate?: unknown; dataLastEditDate?: unknown } | undefined;
  const edited = info?.dataLastEditDate ?? info?.lastEditDate;
  if (typeof edited !== "number")
    throw new FeedError("layer description without editingInfo.lastEditDate", url);
  return `edited:${edited}`;
}
