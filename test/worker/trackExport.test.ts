import { DOMParser } from "@xmldom/xmldom";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { egm96, geoidHeight } from "../../worker/domain/geoid";
import { activeFlight, iso } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** GET /flight/v2/{id}/track: the stored positions as CSV, GPX or KML, for the pilot or a ticket. */

describe("GET /flight/v2/{id}/track", () => {
  it("gives every stored position in each format, to the pilot and to the live page's ticket only", async () => {
    const account = await createAccount("track-export");
    const { token } = await tokenFor(account, "track-pilot");
    const auth = { apiKey: account.apiKey, token };
    const id = await activeFlight(auth);
    const t = Date.now() - 10_000;
    const states = [0, 1, 2].map((i) => ({
      timestamp: { value: iso(t + i * 1000), format: "RFC3339" },
      position: {
        lat: 10.5 + i * 1e-4,
        lng: 20.5,
        alt: 100 + i + geoidHeight(egm96(), 10.5, 20.5),
        accuracy_h: "HA3m",
      },
      track: 0,
      speed: 10,
      vertical_speed: 0,
    }));
    const flightPath = `/flight/v2/${encodeURIComponent(id)}`;
    expect(
      (await call(`${flightPath}/telemetry`, { method: "POST", ...auth, body: { states } })).status,
    ).toBe(200);

    const csv = await call(`${flightPath}/track?format=csv`, auth);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="flight_.+\.csv"$/);
    const rows = parse(csv.text, { columns: true, cast: true }) as Record<string, number | string>[];
    expect(rows.map((r) => [r.time_utc, r.latitude])).toEqual(
      states.map((s) => [s.timestamp.value, s.position.lat]),
    );
    expect(rows[2]!.altitude_msl_m).toBeCloseTo(102, 1);

    const ticket = (await call(`${flightPath}/ticket`, { method: "POST", ...auth })).json.data
      .ticket as string;
    for (const [format, type] of [
      ["gpx", "application/gpx+xml"],
      ["kml", "application/vnd.google-earth.kml+xml"],
    ]) {
      const file = await call(`${flightPath}/track?format=${format}&ticket=${encodeURIComponent(ticket)}`);
      expect(file.status, file.text).toBe(200);
      expect(file.headers.get("content-type")).toBe(type);
      const doc = new DOMParser().parseFromString(file.text, "text/xml");
      expect(doc.documentElement!.nodeName).toBe(format);
      const points = doc.getElementsByTagName(format === "gpx" ? "trkpt" : "gx:coord").length;
      expect(points).toBe(3);
    }

    expect((await call(`${flightPath}/track?format=gpx`)).status).toBe(401);
    const bad = await call(`${flightPath}/track?format=shp`, auth);
    expect(bad.status).toBe(400);
    expect(bad.json.data.errors[0].name).toBe("format");
    const other = await tokenFor(account, "track-other");
    expect(
      (await call(`${flightPath}/track?format=csv`, { apiKey: account.apiKey, token: other.token })).status,
    ).toBe(404);
  });
});
