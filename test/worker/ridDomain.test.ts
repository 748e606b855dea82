import { describe, expect, it } from "vitest";
import {
  horizontalAccuracyOf,
  metersOfHorizontalAccuracy,
  type PositionSample,
  ridFlightFor,
  stateOf,
} from "../../worker/rid/aircraftState";
import { declaredDetailsAsF3411, detailsInForce } from "../../worker/rid/details";
import { HORIZONTAL_ACCURACIES } from "../../worker/rid/f3411";
import { parseTestParameters } from "../../worker/rid/injection";
import { operatorNotifications } from "../../worker/rid/operatorNotifications";
import { diagonalKm, parseRecentDuration, parseView } from "../../worker/rid/view";

/** worker/rid/: the F3411-22a domain without storage or HTTP. */

function sample(
  timestamp: number,
  lat: number,
  lng: number,
  velocity?: PositionSample["velocity"],
): PositionSample {
  return {
    timestamp,
    latitude: lat,
    longitude: lng,
    altitudeWgs84: 100,
    altitudeAgl: 20,
    horizontalAccuracyM: 2,
    velocity,
    declared: undefined,
  };
}

describe("views", () => {
  it("takes the corners in any order and measures the diagonal on the qualifier's sphere", () => {
    const a = parseView("47.41,8.56,47.40,8.55");
    const b = parseView("47.40,8.55,47.41,8.56");
    expect(a).toEqual(b);
    expect(a.ok && a.value).toEqual({ minLat: 47.4, maxLat: 47.41, minLng: 8.55, maxLng: 8.56 });
    // 0.05° of latitude on a 40 075 km circumference.
    expect(diagonalKm({ minLat: 0, maxLat: 0.05, minLng: 0, maxLng: 0 })).toBeCloseTo(
      (0.05 * 40075) / 360,
      6,
    );
  });

  it("marks a view over 7 km as too large (413), malformed ones as 400", () => {
    const big = parseView("0,0,0.0636,0");
    expect(big.ok).toBe(false);
    expect(!big.ok && big.problems[0]!.tooLarge).toBe(true);
    expect(parseView("0,0,0.0628,0").ok).toBe(true);
    for (const text of [undefined, "", "1,2,3", "1,2,3,4,5", "1,,3,4", "x,2,3,4", "91,0,0,0", "0,-181,0,0"]) {
      const parsed = parseView(text);
      expect(parsed.ok, String(text)).toBe(false);
      expect(!parsed.ok && parsed.problems[0]!.tooLarge, String(text)).toBeFalsy();
    }
    expect(parseRecentDuration(undefined)).toEqual({ ok: true, value: 0 });
    expect(parseRecentDuration("60")).toEqual({ ok: true, value: 60 });
    expect(parseRecentDuration("60.5").ok).toBe(false);
  });
});

describe("aircraft states", () => {
  it("classes horizontal accuracy by the finest bound that holds it, and back", () => {
    expect(horizontalAccuracyOf(0)).toBe("HAUnknown");
    expect(horizontalAccuracyOf(3)).toBe("HA3m");
    expect(horizontalAccuracyOf(3.1)).toBe("HA10m");
    expect(horizontalAccuracyOf(50)).toBe("HA005NM");
    expect(horizontalAccuracyOf(20_000)).toBe("HA10NMPlus");
    for (const code of HORIZONTAL_ACCURACIES)
      expect(horizontalAccuracyOf(metersOfHorizontalAccuracy(code))).toBe(code);
  });

  it("derives speed, true track and climb from north-east-down velocity; unknown without one", () => {
    const moving = stateOf(sample(0, 1, 2, { north: 0, east: 3, down: -1 }));
    expect([moving.speed, moving.track, moving.vertical_speed]).toEqual([3, 90, 1]);
    const west = stateOf(sample(0, 1, 2, { north: -1, east: -1, down: 0 }));
    expect(west.track).toBeCloseTo(225, 6);
    const hovering = stateOf(sample(0, 1, 2, { north: 0, east: 0, down: 0 }));
    expect([hovering.speed, hovering.track]).toEqual([0, 361]);
    const unknown = stateOf(sample(0, 1, 2));
    expect([unknown.speed, unknown.track, unknown.vertical_speed]).toEqual([255, 361, 63]);
    expect(unknown.position.height).toEqual({ distance: 20, reference: "GroundLevel" });
    const fast = stateOf(sample(0, 1, 2, { north: 300, east: 0, down: -100 }));
    expect([fast.speed, fast.vertical_speed]).toEqual([254.25, 62]);
  });

  it("reports a flight only with a position inside the view; recent positions keep the edge crossings", () => {
    const view = { minLat: 0, maxLat: 1, minLng: 0, maxLng: 1 };
    const samples = [
      sample(1000, 0.5, -0.5),
      sample(2000, 0.5, 0.5),
      sample(3000, 0.5, 0.6),
      sample(4000, 0.5, 1.5),
      sample(5000, 0.5, 2.5),
    ];
    const flight = ridFlightFor(
      { id: "f", aircraftType: "Helicopter", simulated: false, samples },
      view,
      60,
      5000,
    );
    expect(flight?.recent_positions.map((p) => p.position.lng)).toEqual([-0.5, 0.5, 0.6, 1.5]);
    expect(flight?.current_state.position.lng).toBe(2.5);
    const short = ridFlightFor(
      { id: "f", aircraftType: "Helicopter", simulated: false, samples },
      view,
      2.5,
      5000,
    );
    expect(short?.recent_positions.map((p) => p.position.lng)).toEqual([0.6, 1.5]);
    const elsewhere = { minLat: 5, maxLat: 6, minLng: 5, maxLng: 6 };
    expect(
      ridFlightFor({ id: "f", aircraftType: "Helicopter", simulated: false, samples }, elsewhere, 0, 5000),
    ).toBeNull();
  });
});

describe("details and injection", () => {
  it("answers the latest details already in force, else the earliest", () => {
    const list = [
      { effectiveAfter: 1000, details: { operator_id: "A" } },
      { effectiveAfter: 3000, details: { operator_id: "C" } },
      { effectiveAfter: 2000, details: { operator_id: "B" } },
    ];
    expect(detailsInForce(list, 2500)?.details.operator_id).toBe("B");
    expect(detailsInForce(list, 500)?.details.operator_id).toBe("A");
    expect(detailsInForce([], 500)).toBeUndefined();
  });

  it("shapes injected details as F3411-22a's", () => {
    const details = declaredDetailsAsF3411(
      {
        id: "theirs",
        operator_location: { lat: 1, lng: 2 },
        operator_altitude: { altitude: 30, altitude_type: "Takeoff" },
        serial_number: "SN",
        uas_id: { registration_id: "N.1", utm_id: "" },
        eu_classification: { category: "Open", class: "Class1" },
        auth_data: { format: 1, data: "x" },
      },
      "flight|ours",
    );
    expect(details).toEqual({
      id: "flight|ours",
      operator_location: {
        position: { lat: 1, lng: 2 },
        altitude: { value: 30, reference: "W84", units: "M" },
        altitude_type: "Takeoff",
      },
      uas_id: { registration_id: "N.1", serial_number: "SN" },
      eu_classification: { category: "Open", class: "Class1" },
      auth_data: { format: 1, data: "x" },
    });
  });

  it("reads test flights, refusing repeated injection ids and unplaceable states", () => {
    const state = (t: string, extra: Record<string, unknown> = {}) => ({
      timestamp: t,
      position: { lat: 1, lng: 2, alt: 100 },
      track: 361,
      speed: 255,
      vertical_speed: 63,
      ...extra,
    });
    const flight = (id: string, telemetry: unknown[]) => ({
      injection_id: id,
      aircraft_type: "VTOL",
      telemetry,
      details_responses: [],
    });
    const injectedAt = Date.parse("2026-01-01T00:00:00Z");
    const ok = parseTestParameters(
      {
        requested_flights: [flight("a", [state("2026-01-01T00:00:02Z"), state("2026-01-01T00:00:01Z")])],
      },
      injectedAt,
    );
    expect(ok.ok).toBe(true);
    if (ok.ok) {
      const [f] = ok.value;
      expect(f!.aircraftType).toBe("HybridLift");
      expect(f!.states.map((s) => s.timestamp)).toEqual([
        Date.parse("2026-01-01T00:00:01Z"),
        Date.parse("2026-01-01T00:00:02Z"),
      ]);
      expect(f!.states[0]!.speed).toBeUndefined();
      expect(f!.states[0]!.declared).toEqual({ unknown_velocity: true, unknown_vertical_speed: true });
    }
    const repeated = parseTestParameters(
      {
        requested_flights: [
          flight("a", [state("2026-01-01T00:00:01Z")]),
          flight("a", [state("2026-01-01T00:00:01Z")]),
        ],
      },
      injectedAt,
    );
    expect(!repeated.ok && repeated.problems[0]!.field).toBe("requested_flights[1].injection_id");
    const unknownAlt = parseTestParameters(
      {
        requested_flights: [
          flight("b", [state("2026-01-01T00:00:01Z", { position: { lat: 1, lng: 2, alt: -1000 } })]),
        ],
      },
      injectedAt,
    );
    expect(!unknownAlt.ok && unknownAlt.problems[0]!.field).toBe(
      "requested_flights[0].telemetry[0].position.alt",
    );
    const noTime = parseTestParameters(
      { requested_flights: [flight("c", [state("yesterday")])] },
      injectedAt,
    );
    expect(!noTime.ok && noTime.problems[0]!.field).toBe("requested_flights[0].telemetry[0].timestamp");
    // Dated 1970 or 9999: refused, naming the state (they raised conformance events with those dates).
    for (const absurd of ["1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]) {
      const dated = parseTestParameters(
        { requested_flights: [flight("d", [state("2026-01-01T00:00:01Z"), state(absurd)])] },
        injectedAt,
      );
      expect(dated.ok).toBe(false);
      if (!dated.ok) {
        expect(dated.problems[0]!.field).toBe("requested_flights[0].telemetry[1].timestamp");
        expect(dated.problems[0]!.message).toMatch(/1 h before the injection to 24 h after now/);
      }
    }
  });

  it("takes states without a whole position, counts them for the rate and notifies each missing field once", () => {
    const at = (s: number) => new Date(Date.parse("2026-01-01T00:00:00Z") + s * 1000).toISOString();
    const whole = (s: number) => ({
      timestamp: at(s),
      timestamp_accuracy: 0.1,
      position: { lat: 1, lng: 2, alt: 100 },
      track: 0,
      speed: 1,
      speed_accuracy: "SA1mps",
      vertical_speed: 0,
    });
    const telemetry: Record<string, unknown>[] = Array.from({ length: 12 }, (_, s) => whole(s));
    // As SpOperatorNotifyMissingFields blanks them (monitoring flight_data_resources.py): JSON null.
    telemetry[0] = { ...whole(0), position: null };
    telemetry[1] = { ...whole(1), position: { lat: 1, lng: null, alt: 100 }, track: null };
    telemetry[2] = { ...whole(2), position: null, track: null };
    const parsed = parseTestParameters(
      { requested_flights: [{ injection_id: "f", telemetry, details_responses: [] }] },
      Date.parse("2026-01-01T00:00:00Z"),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const [flight] = parsed.value;
    expect(flight!.states).toHaveLength(9);
    expect(flight!.updateTimes).toHaveLength(12);
    expect(operatorNotifications(parsed.value)).toEqual([
      { observedAt: Date.parse(at(0)), message: "Flight f, telemetry 0: missing field position" },
      { observedAt: Date.parse(at(1)), message: "Flight f, telemetry 1: missing field track" },
      { observedAt: Date.parse(at(1)), message: "Flight f, telemetry 1: missing field position.lng" },
    ]);
    // A flight none of whose states can be placed is refused, naming why.
    const nowhere = parseTestParameters(
      {
        requested_flights: [
          { injection_id: "g", telemetry: [{ ...whole(0), position: null }], details_responses: [] },
        ],
      },
      Date.parse("2026-01-01T00:00:00Z"),
    );
    expect(!nowhere.ok && nowhere.problems[0]).toEqual({
      field: "requested_flights[0].telemetry",
      message: "needs at least one state with a whole position (lat, lng and alt)",
    });
  });

  it("dates a slow rate at the end of the first 10-second window with fewer than 8 seconds updated", () => {
    const start = Date.parse("2026-01-01T00:00:00Z");
    const telemetry = Array.from({ length: 31 }, (_, i) => ({
      timestamp: new Date(start + i * 2000).toISOString(),
      position: { lat: 1, lng: 2, alt: 100 },
    }));
    const parsed = parseTestParameters(
      { requested_flights: [{ injection_id: "s", telemetry, details_responses: [] }] },
      start,
    );
    if (!parsed.ok) throw new Error("refused");
    const slow = operatorNotifications(parsed.value).filter((n) => n.message.includes("below 1 Hz"));
    expect(slow.map((n) => n.observedAt)).toEqual([start + 10_000]);
  });
});
