/** Geometries that tests of every area share; positions are [longitude, latitude]. */

/** A ring that crosses itself: every geometry check must refuse it. */
export const bowTie = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [1, 1],
      [1, 0],
      [0, 1],
      [0, 0],
    ],
  ],
};

/** A time as the ASTM standards write it. */
export const rfc3339 = (ms: number) => ({ value: new Date(ms).toISOString(), format: "RFC3339" as const });

/** The ASTM DSS standards' outline of a square of `halfDeg` around a point ({lat, lng} vertices). */
export const squareOutline = (lat: number, lng: number, halfDeg: number) => ({
  vertices: [
    { lat: lat - halfDeg, lng: lng - halfDeg },
    { lat: lat - halfDeg, lng: lng + halfDeg },
    { lat: lat + halfDeg, lng: lng + halfDeg },
    { lat: lat + halfDeg, lng: lng - halfDeg },
  ],
});

/** An F3411 / F3548 Volume4D: that square, 0–120 m above the WGS 84 ellipsoid, from `startMs` to `endMs`. */
export function dssVolume(lat: number, lng: number, halfDeg: number, startMs: number, endMs: number) {
  return {
    volume: {
      outline_polygon: squareOutline(lat, lng, halfDeg),
      altitude_lower: { value: 0, reference: "W84", units: "M" },
      altitude_upper: { value: 120, reference: "W84", units: "M" },
    },
    time_start: rfc3339(startMs),
    time_end: rfc3339(endMs),
  };
}
