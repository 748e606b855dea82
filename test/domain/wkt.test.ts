import { describe, expect, it } from "vitest";
import { bracketGeometry } from "../../worker/domain/bracketQuery";
import { looksLikeWkt, parseWkt } from "../../worker/domain/wkt";

describe("parseWkt", () => {
  it("reads the Android SDK's one-ring POLYGON(lon lat,…) and closes it (StatusService.java 89)", () => {
    expect(parseWkt("POLYGON(-84.1 36.3,-84.0 36.3,-84.0 36.4)")).toEqual({
      ok: true,
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [-84.1, 36.3],
            [-84.0, 36.3],
            [-84.0, 36.4],
            [-84.1, 36.3],
          ],
        ],
      },
    });
  });

  it("reads standard POLYGON((…),(…)), LINESTRING and POINT", () => {
    const holed = parseWkt("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 2))");
    expect(holed.ok && holed.geometry.coordinates).toHaveLength(2);
    expect(parseWkt("linestring(1 2, 3 4)")).toEqual({
      ok: true,
      geometry: {
        type: "LineString",
        coordinates: [
          [1, 2],
          [3, 4],
        ],
      },
    });
    expect(parseWkt("POINT(1 2)")).toEqual({ ok: true, geometry: { type: "Point", coordinates: [1, 2] } });
  });

  it("names what is wrong, and leaves JSON alone", () => {
    expect(parseWkt("LINESTRING(1 2)").ok).toBe(false);
    expect(parseWkt("POLYGON(1 2, 3 north, 5 6)").ok).toBe(false);
    expect(looksLikeWkt('{"type":"Polygon"}')).toBe(false);
  });
});

describe("bracketGeometry (Alamofire 4.9 bracket form)", () => {
  it("reads a polygon's numbers back as one ring, closed", () => {
    const found = bracketGeometry([
      ["geometry[type]", "Polygon"],
      ...[8.5, 47.3, 8.6, 47.3, 8.6, 47.4].map((n): [string, string] => [
        "geometry[coordinates][][][]",
        String(n),
      ]),
      ["limit", "10"],
    ]);
    expect(found).toEqual({
      ok: true,
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [8.5, 47.3],
            [8.6, 47.3],
            [8.6, 47.4],
            [8.5, 47.3],
          ],
        ],
      },
    });
  });

  it("is null without bracket keys and names an odd count or unknown type", () => {
    expect(bracketGeometry([["geometry", "{}"]])).toBeNull();
    expect(bracketGeometry([["geometry[type]", "Circle"]])).toMatchObject({ ok: false });
    expect(
      bracketGeometry([
        ["geometry[type]", "Point"],
        ["geometry[coordinates][]", "1"],
      ]),
    ).toMatchObject({ ok: false });
  });
});
