import { gpx, kml } from "@tmcw/togeojson";
import { DOMParser } from "@xmldom/xmldom";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import type { PositionRow } from "../../worker/domain/telemetryArchive";
import { trackFile } from "../../worker/domain/trackExport";

/**
 * Each export read back by a reader of its format: csv-parse for CSV, an XML parser (xmldom) for
 * GPX and KML, and Mapbox's togeojson, which map tools use to open GPX and KML.
 */

const ROWS: PositionRow[] = [
  ["2026-11-28T23:50:00.000Z", 57.67, 11.965, 152.5, 60, 3],
  ["2026-11-28T23:50:00.200Z", 57.67012, 11.96531, 152.75, 60.2, 3],
  ["2026-11-28T23:50:00.400Z", 57.67024, 11.96562, 153, 60.4, 2.5],
];
const META = { flightId: "flight|a<b>&c", creator: "Windsock" };

const xml = (text: string) => new DOMParser().parseFromString(text, "text/xml");

describe("track export", () => {
  it("CSV: a header and one row per position, values as stored", () => {
    const records = parse(trackFile("csv", ROWS, META), { columns: true, cast: true }) as Record<
      string,
      unknown
    >[];
    expect(records).toHaveLength(3);
    expect(records[1]).toEqual({
      time_utc: "2026-11-28T23:50:00.200Z",
      latitude: 57.67012,
      longitude: 11.96531,
      altitude_msl_m: 152.75,
      altitude_agl_m_reported: 60.2,
      horizontal_accuracy_m: 3,
    });
  });

  it("GPX 1.1: well-formed, one track point per position with its elevation and time", () => {
    const doc = xml(trackFile("gpx", ROWS, META));
    const root = doc.documentElement!;
    expect(root.nodeName).toBe("gpx");
    expect(root.getAttribute("xmlns")).toBe("http://www.topografix.com/GPX/1/1");
    expect(root.getAttribute("version")).toBe("1.1");
    const points = Array.from(doc.getElementsByTagName("trkpt"));
    expect(points.map((p) => [Number(p.getAttribute("lat")), Number(p.getAttribute("lon"))])).toEqual(
      ROWS.map((r) => [r[1], r[2]]),
    );
    expect(points[2]!.getElementsByTagName("ele")[0]!.textContent).toBe("153");
    expect(doc.getElementsByTagName("name")[0]!.textContent).toBe("flight|a<b>&c");
    const track = gpx(doc as unknown as Document).features[0]!;
    expect(track.geometry).toEqual({ type: "LineString", coordinates: ROWS.map((r) => [r[2], r[1], r[3]]) });
    expect(
      (track.properties as { coordinateProperties: { times: string[] } }).coordinateProperties.times,
    ).toEqual(ROWS.map((r) => r[0]));
  });

  it("KML 2.2: well-formed, a timed gx:Track and a LineString, altitudes above sea level", () => {
    const doc = xml(trackFile("kml", ROWS, META));
    expect(doc.documentElement!.getAttribute("xmlns")).toBe("http://www.opengis.net/kml/2.2");
    const features = kml(doc as unknown as Document).features;
    expect(features).toHaveLength(2);
    const [timed, line] = features;
    expect(timed!.geometry).toEqual({ type: "LineString", coordinates: ROWS.map((r) => [r[2], r[1], r[3]]) });
    expect(
      (timed!.properties as { coordinateProperties: { times: string[] } }).coordinateProperties.times,
    ).toEqual(ROWS.map((r) => r[0]));
    expect(line!.geometry).toEqual(timed!.geometry);
    expect(doc.getElementsByTagName("altitudeMode")[0]!.textContent).toBe("absolute");
  });

  it("an empty track is still a file each reader opens", () => {
    expect(parse(trackFile("csv", [], META), { columns: true })).toEqual([]);
    expect(
      gpx(xml(trackFile("gpx", [], META)) as unknown as Document).features[0]?.geometry ?? null,
    ).toBeNull();
    expect(xml(trackFile("kml", [], META)).documentElement!.nodeName).toBe("kml");
  });
});
