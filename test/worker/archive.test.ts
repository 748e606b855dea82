import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createRouter } from "../../worker/app";
import { archiveRoutes } from "../../worker/routes/archive";
import type { TelemetryRecord } from "../../worker/telemetry/flightTelemetry";
import { flightAt } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/** A whole minute, so every sample interval of these tests starts on it. */
const T = Date.UTC(2030, 0, 1, 12, 0, 0);

let account: TestAccount;
let pilot: { token: string; pilotId: string };
let flightId: string;

/** Stored as the relay's records are stored: straight into the flight's telemetry object. */
async function store(id: string, records: Omit<TelemetryRecord, "sessionId" | "datagram" | "index">[]) {
  const telemetry = env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(id));
  await telemetry.ingest(
    records.map((r) => ({ ...r, sessionId: "session|archive", datagram: `#${r.serial}`, index: 0 })),
  );
}

const position = (serial: number, timestamp: number) => ({
  serial,
  type: "position",
  timestamp,
  receivedAt: timestamp + 50,
  fields: {
    latitude: 34.0150001 + serial * 1e-6,
    longitude: -118.4850001,
    altitude_agl: 30 + serial,
    altitude_msl: 90 + serial,
    horizontal_accuracy: 1.5,
  },
});

beforeAll(async () => {
  account = await createAccount();
  pilot = await tokenFor(account, "archivist");
  flightId = (await flightAt(account, pilot.token)).id;
  // 5 Hz for three seconds, stored out of order, with a barometer record in between.
  const positions = Array.from({ length: 15 }, (_, i) => position(i + 1, T + i * 200)).reverse();
  await store(flightId, [
    ...positions,
    { serial: 99, type: "barometer", timestamp: T + 300, receivedAt: T + 350, fields: { pressure: 1013 } },
  ]);
});

const archive = (query: string, token = pilot.token, apiKey = account.apiKey) =>
  call(`/archive/v1/telemetry/position?${query}`, { apiKey, token });

describe("GET /archive/v1/telemetry/position", () => {
  it("answers the table the Swift SDK decodes, one sample a second by default", async () => {
    const res = await archive(`flight_id=${flightId}`);
    expect(res.status, res.text).toBe(200);
    const { fields, values } = res.json.data;
    expect(fields.slice(0, 4)).toEqual([
      "timestamp",
      "latitude_degrees",
      "longitude_degrees",
      "altitude_meters",
    ]);
    expect(values).toHaveLength(3);
    // Decoded as TelemetryReport+JSON.swift does: zip each row with the fields.
    const reports = values.map((row: unknown[]) =>
      Object.fromEntries(fields.map((f: string, i: number) => [f, row[i]])),
    );
    expect(reports.map((r: any) => r.timestamp)).toEqual([
      "2030-01-01T12:00:00.000Z",
      "2030-01-01T12:00:01.000Z",
      "2030-01-01T12:00:02.000Z",
    ]);
    expect(reports[1]).toEqual({
      timestamp: "2030-01-01T12:00:01.000Z",
      latitude_degrees: 34.0150001 + 6 * 1e-6,
      longitude_degrees: -118.4850001,
      altitude_meters: 96,
      altitude_agl_meters: 36,
      horizontal_accuracy_meters: 1.5,
    });
  });

  it("samples at the SDK's rates: milliseconds, seconds and minutes", async () => {
    const count = async (rate: string) =>
      (await archive(`flight_id=${flightId}&rate=${rate}`)).json.data.values;
    expect(await count("200ms")).toHaveLength(15);
    const half = await count("500ms");
    expect(half.map((row: unknown[]) => row[0])).toEqual(
      [0, 600, 1000, 1600, 2000, 2600].map((ms) => new Date(T + ms).toISOString()),
    );
    expect(await count("2s")).toHaveLength(2);
    expect(await count("1m")).toHaveLength(1);
    expect(await count("1")).toHaveLength(3);
  });

  it("keeps to start and end (ISO 8601, inclusive), as the SDK writes them", async () => {
    const start = encodeURIComponent("2030-01-01T12:00:01.000+0000");
    const end = encodeURIComponent("2030-01-01T12:00:02Z");
    const res = await archive(`flight_id=${encodeURIComponent(flightId)}&start=${start}&end=${end}&rate=1s`);
    expect(res.json.data.values.map((row: unknown[]) => row[0])).toEqual([
      "2030-01-01T12:00:01.000Z",
      "2030-01-01T12:00:02.000Z",
    ]);
    const none = await archive(`flight_id=${flightId}&start=2031-01-01T00:00:00Z`);
    expect(none.json.data.values).toEqual([]);
  });

  it("answers an empty table for a flight without telemetry", async () => {
    const quiet = await flightAt(account, pilot.token);
    const res = await archive(`flight_id=${quiet.id}`);
    expect(res.status).toBe(200);
    expect(res.json.data.values).toEqual([]);
    expect(res.json.data.fields).toContain("altitude_meters");
  });

  it("names bad parameters", async () => {
    const cases: [string, string][] = [
      ["", "flight_id"],
      [`flight_id=${flightId}&rate=fast`, "rate"],
      [`flight_id=${flightId}&rate=0ms`, "rate"],
      [`flight_id=${flightId}&rate=2d`, "rate"],
      [`flight_id=${flightId}&start=yesterday`, "start"],
      [`flight_id=${flightId}&end=2030-01-01T12:00:00`, "end"],
      [`flight_id=${flightId}&start=2030-01-01T12:00:02Z&end=2030-01-01T12:00:01Z`, "end"],
    ];
    for (const [query, field] of cases) {
      const res = await archive(query);
      expect(res.status, query).toBe(400);
      expect(
        res.json.data.errors.map((e: { name: string }) => e.name),
        query,
      ).toContain(field);
    }
  });

  it("is the flight's pilot's alone, like the telemetry read", async () => {
    const neighbour = await tokenFor(account, "archive-neighbour");
    expect((await archive(`flight_id=${flightId}`, neighbour.token)).status).toBe(404);
    const shown = await flightAt(account, pilot.token, { public: true });
    const denied = await archive(`flight_id=${shown.id}`, neighbour.token);
    expect(denied.status).toBe(403);
    const foreign = await createAccount();
    const stranger = await tokenFor(foreign, "archivist");
    expect((await archive(`flight_id=${flightId}`, stranger.token, foreign.apiKey)).status).toBe(404);
    expect((await archive("flight_id=flight%7Cnope")).status).toBe(404);
    const noToken = await call(`/archive/v1/telemetry/position?flight_id=${flightId}`, {
      apiKey: account.apiKey,
    });
    expect(noToken.status).toBe(401);
  });
});

describe("the OpenAPI document", () => {
  it("declares the archive route with its query and table", () => {
    const doc = createRouter()
      .route("/", archiveRoutes)
      .getOpenAPI31Document({ openapi: "3.1.0", info: { title: "archive", version: "1" } });
    const route = doc.paths!["/archive/v1/telemetry/position"]!.get!;
    expect(route.parameters!.map((p: any) => p.name).sort()).toEqual(["end", "flight_id", "rate", "start"]);
    expect(route.security).toEqual([{ ApiKey: [], Bearer: [] }]);
  });
});
