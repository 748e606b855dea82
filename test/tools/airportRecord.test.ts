import { describe, expect, it } from "vitest";
import { airportRecord } from "../../tools/airspace/formats/airports";

describe("airport records", () => {
  it("keep one space between the words of a name, as the sources sometimes do not", () => {
    const record = airportRecord(
      {
        ident: "KJAU",
        type: "small_airport",
        name: "Campbell County Airport  - Colonel Tommy C Stiner Airfield ",
        latitude: 36.334,
        longitude: -84.163,
        elevationFt: 1180,
        iata: null,
        icao: "KJAU",
        localCode: "JAU",
        city: "Jacksboro",
        url: null,
      },
      "ourairports",
    );
    expect(record?.name).toBe("Campbell County Airport - Colonel Tommy C Stiner Airfield");
  });
});
