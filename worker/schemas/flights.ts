import { z } from "@hono/zod-openapi";
import { EXAMPLE_POLYGON } from "../lib/openapi";
import { AreaAdvisory, EvaluatedFeature, evaluationFields } from "./airspace";
import { Deleted, GeometryView, isoTimeView, Paging, PolygonGeometry } from "./common";

/** Flights, flight plans and briefings as the API writes them (spec 2.1, 2.2; CONTRACT §4). */

const FLIGHT_ID = "flight|9f3c0a8e2b";
const PLAN_ID = "flight_plan|4d2e7b1c90";
const PILOT_ID = "pilot|1a2b3c4d5e";

/** Spec 2.6 authorization as a flight stores it (the deep-link callback hands these on). */
export const FlightAuthorization = z
  .object({
    description: z.string(),
    status: z.enum(["pending", "accepted", "rejected", "not_requested", "cancelled"]),
    message: z.string(),
    authority: z.object({ id: z.string(), name: z.string() }),
  })
  .openapi("FlightAuthorization");

/** The Kotlin SDK's `Flight.statuses`: only `accepted`, `rejected` or `pending`. */
const FlightStatus = z.object({
  id: z.string(),
  manager_id: z.string(),
  status: z.enum(["accepted", "rejected", "pending"]),
});

const Manufacturer = z.object({ id: z.string(), name: z.string(), url: z.string().nullable() });

export const Flight = z
  .object({
    id: z.string(),
    flight_plan_id: z.string().nullable().openapi({ description: "null for a flight made without a plan" }),
    pilot_id: z.string().openapi({ description: "The token's `sub`" }),
    aircraft_id: z.string().nullable(),
    latitude: z.number().openapi({ description: "Take-off latitude" }),
    longitude: z.number().openapi({ description: "Take-off longitude" }),
    buffer: z.number().openapi({ description: "Meters" }),
    geometry: PolygonGeometry.openapi({ description: "The flight area" }),
    max_altitude: z.number().openapi({ description: "Meters AGL" }),
    start_time: isoTimeView(),
    end_time: isoTimeView(),
    created_at: isoTimeView(),
    creation_date: isoTimeView("The same as `created_at` (the Swift SDK's name)"),
    public: z.boolean(),
    notify: z.boolean(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string().nullable(),
    authorizations: z.array(FlightAuthorization),
    permits: z.array(z.string()).max(0).openapi({ description: "Always empty: no permits are issued" }),
    statuses: z.array(FlightStatus),
    // `enhance=true` (and the end answer) add these two.
    pilot: z
      .object({ id: z.string(), username: z.string(), picture_url: z.string().nullable() })
      .optional()
      .openapi({ description: "With `enhance=true`, and in the answer to `POST …/end`" }),
    aircraft: z
      .object({
        id: z.string(),
        nickname: z.string(),
        model: z.object({ id: z.string(), name: z.string(), manufacturer: Manufacturer }),
      })
      .nullable()
      .optional()
      .openapi({ description: "With `enhance=true`; null when the flight names no aircraft" }),
  })
  .openapi("Flight", {
    description:
      "A flight is **planned** before `start_time`, **active** until `end_time` (or `POST …/end`), then **ended**.",
    example: {
      id: FLIGHT_ID,
      flight_plan_id: PLAN_ID,
      pilot_id: PILOT_ID,
      aircraft_id: null,
      latitude: 36.3015,
      longitude: -84.119,
      buffer: 100,
      geometry: EXAMPLE_POLYGON,
      max_altitude: 60,
      start_time: "2026-11-21T10:00:00.000Z",
      end_time: "2026-11-21T11:00:00.000Z",
      created_at: "2026-11-20T09:12:00.000Z",
      creation_date: "2026-11-20T09:12:00.000Z",
      public: false,
      notify: false,
      city: "Jacksboro",
      state: "Tennessee",
      country: "USA",
      authorizations: [],
      permits: [],
      statuses: [],
    },
  });

export const FlightList = z
  .object({ results: z.array(Flight), paging: Paging })
  .openapi("FlightList", { description: "A page of flights; pass `paging.next` as `cursor` for the next" });

/** A flight feature value as sent in `flight_features`. */
const FeatureValue = z.union([z.number(), z.string(), z.boolean(), z.null()]);

export const FlightPlan = z
  .object({
    id: z.string(),
    flight_id: z.string().nullable().openapi({ description: "Set once the plan is submitted" }),
    pilot_id: z.string().openapi({ description: "The token's `sub`" }),
    aircraft_id: z.string().nullable(),
    buffer: z.number().openapi({ description: "Meters" }),
    start_time: isoTimeView(),
    end_time: isoTimeView(),
    takeoff_latitude: z.number(),
    takeoff_longitude: z.number(),
    min_altitude_agl: z.number().openapi({ description: "Meters" }),
    max_altitude_agl: z.number().openapi({ description: "Meters" }),
    flight_description: z.string(),
    public: z
      .boolean()
      .openapi({ description: "Whether the flight submitted from it is public; false until submitted" }),
    notify: z.boolean().openapi({ description: "The submitted flight's `notify`; false until submitted" }),
    geometry: GeometryView,
    rulesets: z.array(z.string()),
    flight_features: z
      .object({
        flight_max_altitude_agl: z.number(),
        flight_min_altitude_agl: z.number(),
        max_linear_extent: z.number().openapi({ description: "Meters across the plan's area" }),
      })
      .catchall(FeatureValue)
      .openapi({ description: "The features sent, plus those the service computes from the plan" }),
    created_at: isoTimeView(),
  })
  .openapi("FlightPlan", {
    example: {
      id: PLAN_ID,
      flight_id: null,
      pilot_id: PILOT_ID,
      aircraft_id: null,
      buffer: 0,
      start_time: "2026-11-21T10:00:00.000Z",
      end_time: "2026-11-21T11:00:00.000Z",
      takeoff_latitude: 36.3015,
      takeoff_longitude: -84.119,
      min_altitude_agl: 0,
      max_altitude_agl: 60,
      flight_description: "Roof inspection",
      geometry: EXAMPLE_POLYGON,
      rulesets: ["usa_part_107"],
      flight_features: {
        flight_max_altitude_agl: 60,
        flight_min_altitude_agl: 0,
        max_linear_extent: 1431.2,
      },
      created_at: "2026-11-20T09:12:00.000Z",
    },
  });

export const Briefing = z
  .object({
    flight_plan_id: z.string(),
    created_at: isoTimeView("When the briefing was made"),
    advisories: z.array(AreaAdvisory),
    flight_features: z.array(EvaluatedFeature).openapi({
      description: "Each feature the rules name, once, with its worst status (the Swift SDK reads them here)",
    }),
    ...evaluationFields,
  })
  .openapi("Briefing", {
    description:
      "The plan's evaluation: advisories and their color (also under `airspace`, where the C++ SDK reads them), each rule's status, validations and authorizations",
  });

export { Deleted as DeletedFlight };

/** A body `POST /flight/v2/plan` accepts as it is: the docs' "Try it out" starts from it. */
export const flightPlanCreateExample = {
  takeoff_latitude: 36.3015,
  takeoff_longitude: -84.119,
  start_time: "2030-06-01T15:00:00Z",
  end_time: "2030-06-01T16:00:00Z",
  max_altitude_agl: 60,
  min_altitude_agl: 0,
  buffer: 0,
  geometry: EXAMPLE_POLYGON,
  rulesets: ["usa_part_107"],
  flight_description: "Roof inspection",
  flight_features: { flight_max_altitude_agl: 60 },
};
