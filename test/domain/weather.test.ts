import { describe, expect, it } from "vitest";
import { WeatherUnavailable } from "../../worker/domain/weather/forecast";
import {
  forecastFromOneCall,
  type OneCallResponse,
  openWeatherMap,
} from "../../worker/domain/weather/openWeatherMap";
import { weatherProviderFrom } from "../../worker/domain/weather/provider";
import recorded from "../fixtures/weather/onecall-3.0-phoenix.json";

const oneCall = recorded as unknown as OneCallResponse;
const at = (iso: string) => Date.parse(iso);
const PHOENIX = { latitude: 33.4342, longitude: -112.0116 };

describe("forecastFromOneCall", () => {
  it("maps an hourly entry to the SDK shape: °C, m/s, percent, kilometers, hPa", () => {
    const forecast = forecastFromOneCall(oneCall, {
      start: at("2030-06-01T16:20:00Z"),
      end: at("2030-06-01T16:20:00Z"),
    });
    expect(forecast).toEqual({
      weather: [
        {
          time: "2030-06-01T16:00:00.000Z",
          timezone: "America/Phoenix",
          condition: "clear sky",
          icon: "01d",
          wind: { heading: 245, speed: 4.63, gusting: 7.15 },
          humidity: 10,
          visibility: 10,
          precipitation: 0,
          temperature: 35.1,
          dew_point: 1.4,
          mslp: 1007,
        },
      ],
      attribution: "Weather data by OpenWeather",
      attribution_uri: "https://openweathermap.org/",
    });
  });

  it("lists every hour the window overlaps, and says null where One Call leaves a member out", () => {
    const forecast = forecastFromOneCall(oneCall, {
      start: at("2030-06-01T16:30:00Z"),
      end: at("2030-06-01T18:00:00Z"),
    });
    expect(forecast.weather.map((w) => w.time)).toEqual([
      "2030-06-01T16:00:00.000Z",
      "2030-06-01T17:00:00.000Z",
      "2030-06-01T18:00:00.000Z",
    ]);
    expect(forecast.weather[1]).toMatchObject({
      condition: "few clouds",
      wind: { heading: 240, speed: 5.14, gusting: null },
      precipitation: 2,
    });
    expect(forecast.weather[2]).toMatchObject({ visibility: 9, precipitation: 6 });
  });

  it("reads the daily entries beyond the hourly ones (no visibility there)", () => {
    const forecast = forecastFromOneCall(oneCall, {
      start: at("2030-06-03T15:00:00Z"),
      end: at("2030-06-03T15:00:00Z"),
    });
    expect(forecast.weather).toEqual([
      {
        time: "2030-06-03T19:00:00.000Z",
        timezone: "America/Phoenix",
        condition: "light rain",
        icon: "10d",
        wind: { heading: 200, speed: 6.2, gusting: 11.3 },
        humidity: 21,
        visibility: null,
        precipitation: 34,
        temperature: 35.2,
        dew_point: 9.7,
        mslp: 1006,
      },
    ]);
    // The day of the hourly entries is not listed again.
    const today = forecastFromOneCall(oneCall, {
      start: at("2030-06-01T15:00:00Z"),
      end: at("2030-06-01T15:30:00Z"),
    });
    expect(today.weather.map((w) => w.time)).toEqual(["2030-06-01T15:00:00.000Z"]);
  });

  it("has nothing for a window it does not cover: no weather is made up", () => {
    expect(
      forecastFromOneCall(oneCall, { start: at("2030-05-30T00:00:00Z"), end: at("2030-05-30T01:00:00Z") })
        .weather,
    ).toEqual([]);
    expect(
      forecastFromOneCall(oneCall, { start: at("2030-06-10T00:00:00Z"), end: at("2030-06-10T00:00:00Z") })
        .weather,
    ).toEqual([]);
  });
});

describe("openWeatherMap (fetch adapter)", () => {
  it("asks One Call 3.0 in metric units with the key, and maps the answer", async () => {
    const asked: string[] = [];
    const provider = openWeatherMap({ apiKey: "owm-test-key" }, async (input) => {
      asked.push(String(input));
      return Response.json(recorded);
    });
    const forecast = await provider.forecast(PHOENIX, {
      start: at("2030-06-01T15:00:00Z"),
      end: at("2030-06-01T15:00:00Z"),
    });
    const url = new URL(asked[0]!);
    expect(`${url.origin}${url.pathname}`).toBe("https://api.openweathermap.org/data/3.0/onecall");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      lat: "33.4342",
      lon: "-112.0116",
      units: "metric",
      exclude: "minutely,alerts",
      appid: "owm-test-key",
    });
    expect(forecast.weather).toHaveLength(1);
    expect(forecast.weather[0]).toMatchObject({ temperature: 33.9, humidity: 12, wind: { gusting: 6.3 } });
  });

  it("turns refusals, outages and odd answers into WeatherUnavailable without the key", async () => {
    const window = { start: at("2030-06-01T15:00:00Z"), end: at("2030-06-01T15:00:00Z") };
    const refused = openWeatherMap({ apiKey: "secret-key" }, async () =>
      Response.json(
        {
          cod: 401,
          message: "Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.",
        },
        { status: 401 },
      ),
    );
    const error = await refused.forecast(PHOENIX, window).catch((e) => e);
    expect(error).toBeInstanceOf(WeatherUnavailable);
    expect(error.message).toBe(
      "OpenWeather answered 401: Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.",
    );
    expect(error.message).not.toContain("secret-key");
    const down = openWeatherMap({ apiKey: "k" }, async () => {
      throw new TypeError("fetch failed");
    });
    await expect(down.forecast(PHOENIX, window)).rejects.toThrow("OpenWeather unreachable: fetch failed");
    const odd = openWeatherMap({ apiKey: "k" }, async () => new Response("<html>", { status: 200 }));
    await expect(odd.forecast(PHOENIX, window)).rejects.toBeInstanceOf(WeatherUnavailable);
  });

  it("goes to the configured endpoint when one is set", async () => {
    const asked: string[] = [];
    const provider = openWeatherMap(
      { apiKey: "k", url: "https://weather-proxy.example/onecall" },
      async (input) => {
        asked.push(String(input));
        return Response.json(recorded);
      },
    );
    await provider.forecast(PHOENIX, { start: 0, end: 0 });
    expect(asked[0]).toMatch(/^https:\/\/weather-proxy\.example\/onecall\?lat=/);
  });
});

describe("weatherProviderFrom", () => {
  const noFetch = async () => {
    throw new Error("not called");
  };
  it("names the missing setting", () => {
    expect(weatherProviderFrom({}, noFetch)).toEqual({
      unavailable:
        "No weather provider is configured on this server: set WEATHER_PROVIDER (openweathermap) and WEATHER_API_KEY",
    });
    expect(weatherProviderFrom({ WEATHER_PROVIDER: "openweathermap" }, noFetch)).toEqual({
      unavailable: "WEATHER_API_KEY is not set: the weather provider needs its key",
    });
    expect(weatherProviderFrom({ WEATHER_PROVIDER: "darksky", WEATHER_API_KEY: "k" }, noFetch)).toEqual({
      unavailable: 'WEATHER_PROVIDER names an unknown provider "darksky"; supported: openweathermap',
    });
  });

  it("builds the OpenWeather provider from its settings", () => {
    const setup = weatherProviderFrom({ WEATHER_PROVIDER: "OpenWeatherMap", WEATHER_API_KEY: "k" }, noFetch);
    expect("provider" in setup && setup.provider.name).toBe("openweathermap");
  });
});
