import { beforeAll, describe, expect, it } from "vitest";
import statusAtPoint from "../fixtures/client-fixtures/status_get_point_success.json";
import sdkEnums from "../fixtures/sdk/enums.json";
import { FALLON_CELL_AREA, loadAirspaceFixtures, loadSfoControlledAirspace } from "./airspaceFixtures";
import { createPlan } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * Real responses decoded with the SDKs' enum sets (test/fixtures/sdk/enums.json): a string outside
 * the C++ set would be read silently as the enum's first value (an orange area as green, a refusal as
 * `accepted`), and one outside Kotlin's strict enums would fail to decode. Either fails this test.
 */

type Sdk = "cpp" | "kotlin" | "swift" | "android";
interface EnumSet {
  values: string[];
  fallback: string | null;
}
const ENUMS = sdkEnums as unknown as Record<Sdk, { enums: Record<string, EnumSet> }>;

/** What an SDK's decoder makes of a string: itself when known, else its fallback (null: decoding fails). */
function decode(sdk: Sdk, kind: string, value: string): string | null {
  const set = ENUMS[sdk].enums[kind];
  if (!set) throw new Error(`no ${kind} enum for ${sdk}`);
  return set.values.includes(value) ? value : set.fallback;
}

/** The enum strings of a briefing, an evaluation, a ruleset list or a batch, by kind, with their paths. */
function enumStrings(value: unknown, path = "$", out: [kind: string, path: string, value: string][] = []) {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) enumStrings(item, `${path}[${i}]`, out);
    return out;
  }
  if (typeof value !== "object" || value === null) return out;
  const record = value as Record<string, unknown>;
  const at = (key: string) => `${path}.${key}`;
  const add = (kind: string, key: string) => {
    const v = record[key];
    if (typeof v === "string") out.push([kind, at(key), v]);
  };
  if (/\.authorizations\[\d+\]$/.test(path)) add("authorization_status", "status");
  else if (/\.validations\[\d+\]$/.test(path)) add("validation_status", "status");
  else if (/\.rules\[\d+\]$/.test(path) || /\.flight_features\[\d+\]$/.test(path))
    add("rule_status", "status");
  if (/\.flight_features\[\d+\]$/.test(path)) {
    add("input_type", "input_type");
    add("measurement_type", "measurement_type");
    add("measurement_unit", "measurement_unit");
  }
  add("selection_type", "selection_type");
  add("color", "color");
  if (path.endsWith(".jurisdiction")) add("region", "region");
  if (Array.isArray(record.failures))
    for (const [i, f] of record.failures.entries())
      out.push(["failure", `${at("failures")}[${i}]`, String(f)]);
  for (const [key, child] of Object.entries(record)) if (key !== "failures") enumStrings(child, at(key), out);
  return out;
}

/** Every enum string the C++ decoder would misread, and every one a strict Kotlin enum would refuse. */
function misreadings(response: unknown): string[] {
  const problems: string[] = [];
  for (const [kind, path, value] of enumStrings(response)) {
    if (decode("cpp", kind, value) !== value)
      problems.push(`C++ reads ${path} = ${value} as ${decode("cpp", kind, value)}`);
    const kotlin = ENUMS.kotlin.enums[kind];
    if (kotlin && kotlin.fallback === null && !kotlin.values.includes(value))
      problems.push(`Kotlin cannot decode ${path} = ${value}`);
  }
  return problems;
}

/** About 1 km² over San Francisco International's runways, as the evaluation benchmark uses. */
const SFO_SQUARE_KM = {
  type: "Polygon",
  coordinates: [
    [
      [-122.3807, 37.6145],
      [-122.3693, 37.6145],
      [-122.3693, 37.6235],
      [-122.3807, 37.6235],
      [-122.3807, 37.6145],
    ],
  ],
};
/** 0.1° east of the airport, where the facility map allows 400 ft. */
const SFO_EAST = {
  type: "Polygon",
  coordinates: [
    [
      [-122.279, 37.6185],
      [-122.273, 37.6185],
      [-122.273, 37.6215],
      [-122.279, 37.6215],
      [-122.279, 37.6185],
    ],
  ],
};

let account: TestAccount;
let pilot: { token: string; pilotId: string };
const NAMES = [
  "briefing at SFO",
  "briefing, recreational at SFO",
  "briefing east of SFO",
  "briefing, submitted",
  "plan evaluation",
  "evaluation at SFO",
  "evaluation without features",
  "batch authorizations",
  "rules by id",
  "one ruleset",
  "UK rules",
  "rules for an area",
] as const;
const responses: Record<string, unknown> = {};
/** The same plans' briefings and batch, asked by the Android and Swift SDKs (their User-Agents, worker/domain/sdkDialect.ts). */
const DIALECT_USER_AGENTS = {
  android: "okhttp/3.14.7",
  swift: "AirMapDemo/2.0 (com.airmap.demo; build:1; iOS 12.4.0) Alamofire/4.7.2",
} as const;
const dialectResponses: Record<string, Record<string, unknown>> = { android: {}, swift: {} };

beforeAll(async () => {
  await loadAirspaceFixtures();
  await loadSfoControlledAirspace();
  account = await createAccount();
  pilot = await tokenFor(account, "sdk-pilot");
  const key = { apiKey: account.apiKey };
  const asPilot = { ...key, token: pilot.token };
  const sfoPlan = (overrides: Record<string, unknown>) =>
    createPlan(account, pilot.token, {
      takeoff_latitude: 37.619,
      takeoff_longitude: -122.375,
      geometry: SFO_SQUARE_KM,
      max_altitude_agl: 60,
      ...overrides,
    });
  // Four days ahead: further coordination takes requests 72 hours before the flight at the earliest.
  const busy = await sfoPlan({
    rulesets: [],
    start_time: new Date(Date.now() + 96 * 3_600_000).toISOString(),
    end_time: new Date(Date.now() + 97 * 3_600_000).toISOString(),
  });
  const recreational = await sfoPlan({ rulesets: ["usa_sec_44809"] });
  const east = await sfoPlan({ geometry: SFO_EAST, takeoff_longitude: -122.276, rulesets: ["usa_part_107"] });
  const submitted = await sfoPlan({
    geometry: SFO_EAST,
    takeoff_longitude: -122.276,
    rulesets: ["usa_part_107"],
  });
  await call(`/flight/v2/plan/${submitted.id}/submit`, { method: "POST", ...asPilot });
  const get = async (name: string, path: string, options = key) => {
    const res = await call(path, options);
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text}`);
    responses[name] = res.json.data;
  };
  await get("briefing at SFO", `/flight/v2/plan/${busy.id}/briefing`, asPilot);
  await get("briefing, recreational at SFO", `/flight/v2/plan/${recreational.id}/briefing`, asPilot);
  await get("briefing east of SFO", `/flight/v2/plan/${east.id}/briefing`, asPilot);
  await get("briefing, submitted", `/flight/v2/plan/${submitted.id}/briefing`, asPilot);
  await get("plan evaluation", `/rules/v1/${busy.id}/evaluation`);
  for (const [name, features] of [
    ["evaluation at SFO", { flight_max_altitude_agl: 20.0, flight_at_night: true }],
    ["evaluation without features", undefined],
  ] as const) {
    const res = await call("/rules/v1/evaluation", {
      method: "POST",
      ...key,
      body: { geometry: SFO_SQUARE_KM, rulesets: "usa_part_107,usa_advisories", flight_features: features },
    });
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text}`);
    responses[name] = res.json.data;
  }
  await get(
    "batch authorizations",
    `/flight/v2/plan/batch/authorizations?flight_plan_ids=${[busy.id, recreational.id, east.id, submitted.id].join(",")}`,
    asPilot,
  );
  await get(
    "rules by id",
    "/rules/v1/rule?rulesets=usa_part_107,usa_sec_44809,usa_national_parks,usa_advisories",
  );
  await get("one ruleset", "/rules/v1/usa_part_107");
  for (const [sdk, userAgent] of Object.entries(DIALECT_USER_AGENTS)) {
    const asSdk = { ...asPilot, headers: { "User-Agent": userAgent } };
    for (const [name, path] of [
      ["briefing at SFO", `/flight/v2/plan/${busy.id}/briefing`],
      ["briefing, recreational at SFO", `/flight/v2/plan/${recreational.id}/briefing`],
      ["briefing east of SFO", `/flight/v2/plan/${east.id}/briefing`],
      ["briefing, submitted", `/flight/v2/plan/${submitted.id}/briefing`],
      [
        "batch authorizations",
        `/flight/v2/plan/batch/authorizations?flight_plan_ids=${[busy.id, east.id].join(",")}`,
      ],
    ] as const) {
      const res = await call(path, asSdk);
      if (res.status !== 200) throw new Error(`${sdk} ${name}: ${res.status} ${res.text}`);
      dialectResponses[sdk]![name] = res.json.data;
    }
  }
  await get("UK rules", "/rules/v1/rule?rulesets=gbr_open_category,gbr_flight_restriction_zones");
  const area = await call("/rules/v1/", { method: "POST", ...key, body: { geometry: FALLON_CELL_AREA } });
  responses["rules for an area"] = area.json.data;
});

describe("responses decoded with the SDKs' enum sets", () => {
  it("are all fetched, and hold the enums under test", () => {
    expect(Object.keys(responses).sort()).toEqual([...NAMES].sort());
    const kinds = new Set(Object.values(responses).flatMap((r) => enumStrings(r).map(([kind]) => kind)));
    expect([...kinds].sort()).toEqual([
      "authorization_status",
      "color",
      "failure",
      "input_type",
      "measurement_type",
      "measurement_unit",
      "region",
      "rule_status",
      "selection_type",
      "validation_status",
    ]);
  });

  it.each(NAMES)("%s: no string any SDK misreads or refuses", (name) => {
    expect(misreadings(responses[name])).toEqual([]);
  });

  it("read a controlled area at a busy airport as it is: orange, with its advisories, and not authorized", () => {
    const briefing = responses["briefing at SFO"] as any;
    // The C++ SDK reads the color only from `airspace`.
    expect(decode("cpp", "color", briefing.airspace.color)).toBe("orange");
    expect(briefing.airspace.advisories.map((a: any) => a.type)).toContain("controlled_airspace");
    expect(briefing.color).toBe("orange");
    // SFO's runways lie under 0 ft cells: LAANC sends it to further coordination.
    expect(briefing.authorizations.map((a: any) => decode("cpp", "authorization_status", a.status))).toEqual([
      "pending",
    ]);
    expect(briefing.validations.map((v: any) => decode("cpp", "validation_status", v.status))).toEqual([
      "invalid",
      "invalid",
    ]);
    const recreational = responses["briefing, recreational at SFO"] as any;
    expect(recreational.authorizations.map((a: any) => a.status)).toEqual(["rejected_upon_submission"]);
    // Swift reads it as rejected too; Kotlin knows it.
    expect(decode("swift", "authorization_status", "rejected_upon_submission")).toBe(
      "rejected_upon_submission",
    );
    expect((responses["briefing east of SFO"] as any).authorizations.map((a: any) => a.status)).toEqual([
      "accepted_upon_submission",
    ]);
    expect((responses["briefing, submitted"] as any).authorizations.map((a: any) => a.status)).toEqual([
      "accepted",
    ]);
  });

  it("never send a status that a decoder turns into an authorization", () => {
    for (const response of Object.values(responses))
      for (const [kind, path, value] of enumStrings(response))
        if (kind === "authorization_status" && !["accepted", "accepted_upon_submission"].includes(value))
          for (const sdk of ["cpp", "kotlin", "swift"] as const)
            expect(decode(sdk, kind, value), `${sdk} ${path}`).not.toMatch(/^(accepted|authorized)/);
  });

  it("the Android and Swift SDKs' own requests: every authorization status read as itself", () => {
    for (const [sdk, answers] of Object.entries(dialectResponses))
      for (const [name, response] of Object.entries(answers))
        for (const [kind, path, value] of enumStrings(response))
          if (kind === "authorization_status")
            expect(decode(sdk as Sdk, kind, value), `${sdk} ${name} ${path}`).toBe(value);
    expect(
      (dialectResponses.android!["briefing east of SFO"] as any).authorizations.map((a: any) => a.status),
    ).toEqual(["authorized_upon_submission"]);
    expect(
      (dialectResponses.swift!["briefing east of SFO"] as any).authorizations.map((a: any) => a.status),
    ).toEqual(["authorized_upon_submission"]);
  });

  it("agree with what the original platform sent (client fixtures)", () => {
    const colors = [statusAtPoint.data.advisory_color, ...statusAtPoint.data.advisories.map((a) => a.color)];
    for (const color of colors) {
      expect(decode("cpp", "color", color)).toBe(color);
      expect(decode("kotlin", "color", color)).toBe(color);
    }
  });

  it("catch a misreading when there is one", () => {
    expect(
      misreadings({
        airspace: { color: "amber" },
        authorizations: [{ status: "not_requested" }],
        validations: [{ status: "missing" }],
        rulesets: [{ selection_type: "pickone", rules: [{ status: "unevaluated" }] }],
      }),
    ).toEqual([
      "C++ reads $.airspace.color = amber as green",
      "Kotlin cannot decode $.airspace.color = amber",
      "C++ reads $.authorizations[0].status = not_requested as accepted",
      "C++ reads $.validations[0].status = missing as valid",
      "Kotlin cannot decode $.rulesets[0].selection_type = pickone",
      "C++ reads $.rulesets[0].rules[0].status = unevaluated as unknown",
    ]);
  });
});
