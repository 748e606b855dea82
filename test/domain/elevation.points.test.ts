import { describe, expect, it } from "vitest";
import { MAX_POINTS, PointsError, pointsFrom, positionsFrom } from "../../worker/domain/elevation/points";

/** positionsFrom's one-pass reader against pointsFrom: the same numbers, bit for bit, and the same faults. */
const asPairs = ({ lats, lngs }: { lats: Float64Array; lngs: Float64Array }) =>
  Array.from(lats, (lat, i) => [lat, lngs[i]!]);

function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

describe("positionsFrom", () => {
  it("reads random decimals exactly as Number() does, at every precision", () => {
    const next = random(7);
    const items: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const value = (next() - 0.5) * (i % 2 === 0 ? 180 : 360);
      const text = value.toFixed(i % 18);
      items.push(i % 7 === 0 && value > 0 ? `+${text}` : text);
    }
    // Longer than 15 digits (Number() reads those), leading zeros, a bare fraction and a bare point.
    items.push("12.3456789012345678", "-0.000000000000000001", "007.5", ".5", "5.", "-0", "-.25", "90");
    const text = items.join(",");
    const fast = asPairs(positionsFrom(text));
    const reference = pointsFrom(text);
    expect(fast).toHaveLength(reference.length);
    fast.forEach((pair, i) => {
      expect(Object.is(pair[0], reference[i]![0]), `${items[2 * i]}`).toBe(true);
      expect(Object.is(pair[1], reference[i]![1]), `${items[2 * i + 1]}`).toBe(true);
    });
  });

  it("takes exponents and spaces too, as the general reader does", () => {
    const text = " 5.7e1 ,11.9, 36.5,-8.42E+1";
    expect(asPairs(positionsFrom(text))).toEqual(pointsFrom(text));
  });

  it.each([
    ["", "give latitude,longitude pairs separated by commas"],
    ["57.7,11.9,", "item 3"],
    ["57.7,,11.9", "item 2"],
    ["57.7,11.9,1", "odd count"],
    ["0x10,5", "item 1"],
    ["1.2.3,4", "item 1"],
    ["-,4", "item 1"],
    ["57.7,11.9,91,0", "latitude 91 of point 2"],
    ["57.7,-180.5", "longitude -180.5 of point 1"],
    ["Infinity,0", "item 1"],
    // Read as UTF-8 bytes: a character beyond ASCII ends the one-pass reader wherever it stands.
    ["57.7,11.9é", "item 2"],
    ["57.7,١١", "item 2"],
    ["57.7,11.9,57.8,11.8\u00a0,1", "odd count"],
  ])("refuses %j as pointsFrom does (%s)", (text, message) => {
    expect(() => positionsFrom(text)).toThrow(PointsError);
    expect(() => positionsFrom(text)).toThrow(message);
    expect(() => pointsFrom(text)).toThrow(message);
  });

  it("keeps the limit and its message, and reads the POST form's pairs", () => {
    const text = (n: number) => Array.from({ length: n }, () => "57.7,11.9").join(",");
    expect(positionsFrom(text(MAX_POINTS)).lats).toHaveLength(MAX_POINTS);
    expect(() => positionsFrom(text(MAX_POINTS + 1))).toThrow(/at most 10000/);
    expect(
      asPairs(
        positionsFrom([
          [57.7, 11.9],
          [-33.5, 151.25],
        ]),
      ),
    ).toEqual([
      [57.7, 11.9],
      [-33.5, 151.25],
    ]);
    expect(() => positionsFrom([[57.7]])).toThrow("point 1 has 1 numbers");
  });
});
