import { describe, expect, it } from "vitest";
import { planBody } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** A closed circle of `sides` sides around Santa Monica: `sides` + 1 positions. */
function circle(sides: number) {
  const ring = Array.from({ length: sides }, (_, i) => {
    const angle = (2 * Math.PI * i) / sides;
    return [-118.485 + 0.01 * Math.cos(angle), 34.015 + 0.01 * Math.sin(angle)];
  });
  return { type: "Polygon", coordinates: [[...ring, ring[0]]] };
}

describe("the 10,000-position limit of a flight geometry (CONTRACT §1)", () => {
  it("accepts a plan of exactly 10,000 positions and refuses 10,001 with a JSend 413", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "big-area");
    const post = (geometry: unknown) =>
      call("/flight/v2/plan", {
        method: "POST",
        apiKey: account.apiKey,
        token,
        body: planBody({ geometry }),
      });
    const accepted = await post(circle(9_999));
    expect(accepted.status, accepted.text.slice(0, 300)).toBe(200);
    expect(accepted.json.data.geometry.coordinates[0]).toHaveLength(10_000);
    expect(accepted.json.data.flight_features.max_linear_extent).toBeCloseTo(2 * 0.01 * 111_195, -2);
    const refused = await post(circle(10_000));
    expect(refused.status).toBe(413);
    expect(refused.json).toMatchObject({
      status: "fail",
      data: { code: 413, errors: [{ name: "geometry", message: "at most 10000 positions" }] },
    });
  });

  it("refuses a 10,000-position ring that crosses itself with 400", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "crossed");
    const crossed = circle(9_999);
    const ring = crossed.coordinates[0]!;
    [ring[4000], ring[4001]] = [ring[4001]!, ring[4000]!];
    const res = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: planBody({ geometry: crossed }),
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0].name).toBe("geometry");
  });
});
