import { describe, expect, it } from "vitest";
import { type FlightRecord, flightJson, flightView } from "../../worker/domain/flightViews";

const flight: FlightRecord = {
  id: "flight|abc",
  accountId: "account|a",
  pilotId: "pilot|p",
  flightPlanId: null,
  aircraftId: "aircraft|\u0000geometry",
  latitude: 34.015,
  longitude: -118.485,
  buffer: 100,
  geometry: {
    type: "Polygon",
    coordinates: [
      [
        [-118.49, 34.01],
        [-118.48, 34.01],
        [-118.48, 34.02],
        [-118.49, 34.01],
      ],
    ],
  },
  minLat: 34.01,
  minLng: -118.49,
  maxLat: 34.02,
  maxLng: -118.48,
  maxAltitude: 60,
  startTime: Date.UTC(2026, 10, 24, 10),
  endTime: Date.UTC(2026, 10, 24, 11),
  createdAt: Date.UTC(2026, 10, 23),
  public: true,
  notify: false,
  city: "Santa Monica",
  state: "California",
  country: "USA",
  authorizations: [
    { description: "", status: "accepted", message: "", authority: { id: "faa", name: "FAA" } },
  ],
};

describe("flightJson", () => {
  it("writes the same flight as flightView, with the stored area text spliced in unparsed", () => {
    const text = flightJson(flight, JSON.stringify(flight.geometry));
    expect(JSON.parse(text)).toEqual(flightView(flight));
    const marked = flightJson(flight, '{"type":"Polygon","coordinates":[]}');
    expect(JSON.parse(marked).geometry).toEqual({ type: "Polygon", coordinates: [] });
  });

  it("adds the enhancement members", () => {
    const extra = { pilot: { id: "pilot|p", username: "ann", picture_url: null }, aircraft: null };
    expect(JSON.parse(flightJson(flight, JSON.stringify(flight.geometry), extra))).toEqual({
      ...flightView(flight),
      ...extra,
    });
  });
});
