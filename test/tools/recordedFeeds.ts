/**
 * The FAA feeds as recorded-from-docs answers (test/fixtures/airspace/feeds), served by URL: as a
 * fake fetch for the sync's tests, and by the local HTTP server the command's tests point it at.
 * ArcGIS layers live under /arcgis/<service>/FeatureServer/0, tfr.faa.gov under /tfr.
 */

/** A fixture's text by the name after `recorded-from-docs_`: read from disk in Node, bundled in workerd. */
export type FixtureReader = (name: string) => string;

export interface RecordedFeeds {
  /** Answers to use instead of the recorded ones, by `<pathname>` or `<pathname>@<resultOffset>`. */
  override: Map<string, { status: number; body: string }>;
  /** Every URL asked for, in order. */
  asked: string[];
  answer(url: URL): { status: number; body: string };
  fetch: typeof fetch;
}

export const FEED_URLS = (base: string) => ({
  AIRSPACE_FEED_URL_FAA_TFR: `${base}/tfr`,
  AIRSPACE_FEED_URL_FAA_UAS_FACILITY_MAP: `${base}/arcgis/FAA_UAS_FacilityMap_Data/FeatureServer/0`,
  AIRSPACE_FEED_URL_FAA_CLASS_AIRSPACE: `${base}/arcgis/Class_Airspace/FeatureServer/0`,
  AIRSPACE_FEED_URL_FAA_SPECIAL_USE_AIRSPACE: `${base}/arcgis/Special_Use_Airspace/FeatureServer/0`,
  AIRSPACE_FEED_URL_FAA_NATIONAL_SECURITY_UAS: `${base}/arcgis/National_Security_UAS_Flight_Restrictions/FeatureServer/0`,
});

export function recordedFeeds(fixture: FixtureReader): RecordedFeeds {
  const override = new Map<string, { status: number; body: string }>();
  const asked: string[] = [];
  const ok = (body: string) => ({ status: 200, body });
  const answer = (url: URL) => {
    asked.push(url.toString());
    const offset = url.searchParams.get("resultOffset");
    const replaced = override.get(`${url.pathname}@${offset}`) ?? override.get(url.pathname);
    if (replaced) return replaced;
    const p = url.pathname;
    if (p === "/arcgis/Class_Airspace/FeatureServer/0")
      return ok(fixture("arcgis_class_airspace_layer.json"));
    if (p === "/arcgis/Class_Airspace/FeatureServer/0/query") {
      if (offset === "0") return ok(fixture("arcgis_class_airspace_page0.geojson"));
      if (offset === "2") return ok(fixture("arcgis_class_airspace_page1.geojson"));
    }
    if (p === "/arcgis/FAA_UAS_FacilityMap_Data/FeatureServer/0/query") {
      if (url.searchParams.has("outStatistics")) return ok(fixture("arcgis_facility_map_statistics.json"));
      if (offset === "0") return ok(fixture("arcgis_facility_map_page0.geojson"));
    }
    if (p === "/tfr/tfrapi/getTfrList") return ok(fixture("tfr_list.json"));
    if (p === "/tfr/geoserver/TFR/ows") return ok(fixture("tfr_shapes.geojson"));
    const detail = /^\/tfr\/download\/detail_(\d+_\d+)\.xml$/.exec(p);
    if (detail) {
      try {
        return ok(fixture(`tfr_detail_${detail[1]}.xml`));
      } catch {
        return { status: 404, body: "<html>Not Found</html>" };
      }
    }
    // ArcGIS answers an unknown query with its error page, HTTP 200.
    return ok(fixture("arcgis_error_page.json"));
  };
  return {
    override,
    asked,
    answer,
    fetch: (async (input: RequestInfo | URL) => {
      const { status, body } = answer(new URL(input instanceof Request ? input.url : input.toString()));
      return new Response(body, { status });
    }) as typeof fetch,
  };
}
