import { describe, expect, it } from "vitest";
import { FeedError, pageOf, versionFromStatistics } from "../../worker/domain/airspace/feeds/arcgis";
import { tfrDetailTimes, tfrList } from "../../worker/domain/airspace/feeds/tfr";
import { parseNationalSecurity } from "../../worker/domain/airspace/formats/faaNationalSecurity";
import { parseSpecialUseAirspace } from "../../worker/domain/airspace/formats/faaSpecialUse";

const square = {
  type: "Polygon",
  coordinates: [
    [
      [-77.05, 38.88],
      [-77.0, 38.88],
      [-77.0, 38.91],
      [-77.05, 38.88],
    ],
  ],
};
const collection = (features: { properties: Record<string, unknown>; geometry?: unknown }[]) => ({
  type: "FeatureCollection",
  features: features.map((f) => ({ type: "Feature", geometry: square, ...f })),
});

describe("FAA Special Use Airspace reader", () => {
  it("types each area by TYPE_CODE, with its limits, and skips what it cannot type", () => {
    const parsed = parseSpecialUseAirspace(
      collection([
        {
          properties: {
            GLOBAL_ID: "P-56A",
            NAME: "P-56A WASHINGTON",
            TYPE_CODE: "P",
            LOWER_CODE: "SFC",
            UPPER_VAL: "18000",
            UPPER_CODE: "MSL",
          },
        },
        {
          properties: {
            GLOBAL_ID: "R-4001A",
            NAME: "R-4001A ABERDEEN",
            TYPE_CODE: "R",
            TIMESOFUSE: "0700-2400 MON-FRI",
          },
        },
        { properties: { GLOBAL_ID: "X", NAME: "SOMETHING", TYPE_CODE: "Q" } },
      ]),
    );
    expect(parsed.features.map((f) => [f.sourceId, f.type, f.properties.type])).toEqual([
      ["P-56A", "special_use_airspace", "prohibited"],
      ["R-4001A", "special_use_airspace", "restricted"],
    ]);
    expect(parsed.features[0]).toMatchObject({
      floorM: 0,
      floorCode: "AGL",
      ceilingM: 5486.4,
      ceilingCode: "MSL",
    });
    expect(parsed.features[1]!.properties.times_of_use).toBe("0700-2400 MON-FRI");
    expect([...parsed.skipped]).toEqual([['unknown TYPE_CODE "Q"', 1]]);
  });
});

describe("FAA National Security UAS Flight Restrictions reader", () => {
  it("makes each a prohibited area from the surface to its CEILING (ft AGL)", () => {
    const parsed = parseNationalSecurity(
      collection([
        {
          properties: {
            OBJECTID: 7,
            NAME: "FORT EXAMPLE",
            TYPE: "FULL TIME",
            CEILING: 400,
            LAST_EDIT: 1778716800000,
          },
        },
        { properties: { OBJECTID: 8, NAME: "NO SHAPE" }, geometry: null },
      ]),
    );
    expect(parsed.features).toHaveLength(1);
    expect(parsed.features[0]).toMatchObject({
      sourceId: "7",
      type: "special_use_airspace",
      properties: {
        type: "prohibited",
        restriction: "national_security_uas_flight_restriction",
        schedule: "full time",
      },
      floorM: 0,
      ceilingM: 121.92,
      ceilingCode: "AGL",
      lastUpdated: 1778716800000,
    });
    expect([...parsed.skipped]).toEqual([["no polygon geometry", 1]]);
  });
});

describe("feed answers", () => {
  it("refuses a page that claims more records but holds none, and statistics without a count", () => {
    expect(() =>
      pageOf({ type: "FeatureCollection", features: [], properties: { exceededTransferLimit: true } }, "u"),
    ).toThrow(FeedError);
    expect(() => versionFromStatistics({ features: [{ attributes: {} }] }, "u")).toThrow(/record_count/);
  });

  it("reads the TFR list's NOTAM ids and a detail's UTC times; refuses an HTML page as a detail", () => {
    expect(
      tfrList([{ notam_id: "6/1234", type: "VIP" }, { notam: "5/0001" }, { notam_id: "junk" }], "u"),
    ).toEqual([
      { notam: "6/1234", type: "VIP", description: null },
      { notam: "5/0001", type: null, description: null },
    ]);
    expect(
      tfrDetailTimes(
        "<XNOTAM-Update><dateEffective>2026-11-26T12:00:00</dateEffective></XNOTAM-Update>",
        "u",
      ),
    ).toEqual({ start: Date.parse("2026-11-26T12:00:00Z"), end: null });
    expect(() => tfrDetailTimes("<html>Not Found</html>", "https://tfr.faa.gov/x.xml")).toThrow(
      "not a TFR detail (no XNOTAM-Update) (https://tfr.faa.gov/x.xml)",
    );
  });
});
