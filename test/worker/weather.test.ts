import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Bindings } from "../../worker/env";
import worker from "../../worker/index";
import recorded from "../fixtures/weather/onecall-3.0-phoenix.json";
import { loadAirspaceFixtures } from "./airspaceFixtures";
import { BASE, call, createAccount, type TestAccount } from "./helpers";

const OPENWEATHER = { WEATHER_PROVIDER: "openweathermap", WEATHER_API_KEY: "owm-fake-key" };
const PHOENIX = "latitude=33.4342&longitude=-112.0116";

let account: TestAccount;
beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount();
});
afterEach(() => vi.restoreAllMocks());

/** Stands in for OpenWeather's API: records each URL and answers as told. */
function fakeOpenWeather(answer: () => Response) {
  const asked: URL[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
    asked.push(new URL(String(input instanceof Request ? input.url : input)));
    return answer();
  });
  return asked;
}

/** The worker with the given settings, as deployed with them. */
async function withSettings(settings: Partial<Bindings>, path: string) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`${BASE}${path}`, { headers: { "X-API-Key": account.apiKey } }),
    { ...env, ...settings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: response.status, json: (await response.json()) as any };
}

describe("GET /advisory/v1/weather", () => {
  it("answers 503 naming the settings when no provider is configured", async () => {
    const res = await call(`/advisory/v1/weather?${PHOENIX}`, { apiKey: account.apiKey });
    expect(res.status).toBe(503);
    expect(res.json).toEqual({
      status: "error",
      code: 503,
      message:
        "No weather provider is configured on this server: set WEATHER_PROVIDER (openweathermap) and WEATHER_API_KEY",
    });
    const keyless = await withSettings(
      { WEATHER_PROVIDER: "openweathermap" },
      `/advisory/v1/weather?${PHOENIX}`,
    );
    expect(keyless.status).toBe(503);
    expect(keyless.json.message).toContain("WEATHER_API_KEY");
  });

  it("maps the provider's forecast for the window, with dew_point also at the top for the C++ SDK", async () => {
    const asked = fakeOpenWeather(() => Response.json(recorded));
    const res = await withSettings(
      OPENWEATHER,
      `/advisory/v1/weather?${PHOENIX}&start=2030-06-01T15:30:00.000000Z&end=2030-06-01T16:10:00.000000Z`,
    );
    expect(res.status).toBe(200);
    expect(asked[0]!.searchParams.get("appid")).toBe("owm-fake-key");
    expect(asked[0]!.searchParams.get("lat")).toBe("33.4342");
    expect(res.json.data).toEqual({
      weather: [
        expect.objectContaining({ time: "2030-06-01T15:00:00.000Z", temperature: 33.9, dew_point: 2.1 }),
        expect.objectContaining({ time: "2030-06-01T16:00:00.000Z", temperature: 35.1, dew_point: 1.4 }),
      ],
      attribution: "Weather data by OpenWeather",
      attribution_uri: "https://openweathermap.org/",
      dew_point: 2.1,
    });
    // Kotlin requires time, timezone and condition of every entry.
    for (const entry of res.json.data.weather) {
      expect(entry.timezone).toBe("America/Phoenix");
      expect(typeof entry.condition).toBe("string");
    }
  });

  it("answers 502 when the provider refuses, without passing on the key", async () => {
    fakeOpenWeather(() => Response.json({ cod: 401, message: "Invalid API key." }, { status: 401 }));
    const res = await withSettings(OPENWEATHER, `/advisory/v1/weather?${PHOENIX}`);
    expect(res.status).toBe(502);
    expect(res.json).toEqual({
      status: "error",
      code: 502,
      message: "OpenWeather answered 401: Invalid API key.",
    });
  });

  it("refuses a window no forecast covers, and bad coordinates and times", async () => {
    fakeOpenWeather(() => Response.json(recorded));
    const past = await withSettings(
      OPENWEATHER,
      `/advisory/v1/weather?${PHOENIX}&start=2030-05-01T00:00:00Z`,
    );
    expect(past.status).toBe(400);
    expect(past.json.data.errors.map((e: any) => e.name)).toEqual(["start"]);
    for (const [query, field] of [
      ["latitude=91&longitude=0", "latitude"],
      ["latitude=33", "longitude"],
      [`${PHOENIX}&start=tomorrow`, "start"],
      [`${PHOENIX}&start=2030-06-01T16:00:00Z&end=2030-06-01T15:00:00Z`, "end"],
    ] as const) {
      const res = await withSettings(OPENWEATHER, `/advisory/v1/weather?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.data.errors.map((e: any) => e.name)).toEqual([field]);
    }
  });
});

describe("weather=true on status", () => {
  it("adds the provider's weather at the status time", async () => {
    const asked = fakeOpenWeather(() => Response.json(recorded));
    const res = await withSettings(
      OPENWEATHER,
      "/status/v2/point?latitude=39.47816&longitude=-118.78456&weather=true&datetime=2030-06-01T17:05:00Z",
    );
    expect(res.status).toBe(200);
    expect(asked[0]!.searchParams.get("lat")).toBe("39.47816");
    expect(res.json.data.weather).toMatchObject({
      time: "2030-06-01T17:00:00.000Z",
      condition: "few clouds",
      temperature: 36.2,
      visibility: 10,
    });
    expect(res.json.data.weather_unavailable).toBeUndefined();
    expect(res.json.data.advisory_color).toBe("orange");
  });

  it("still answers the status when the provider fails, saying why there is no weather", async () => {
    fakeOpenWeather(() => new Response("busy", { status: 503 }));
    const res = await withSettings(
      OPENWEATHER,
      "/status/v2/point?latitude=39.47816&longitude=-118.78456&weather=true",
    );
    expect(res.status).toBe(200);
    expect(res.json.data.weather).toBeUndefined();
    expect(res.json.data.weather_unavailable).toBe("OpenWeather answered 503");
  });
});
