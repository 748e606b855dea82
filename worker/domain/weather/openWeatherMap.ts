import {
  type Forecast,
  type Place,
  type TimeWindow,
  type WeatherProvider,
  WeatherUnavailable,
  type WeatherUpdate,
} from "./forecast";

/**
 * OpenWeather's One Call API 3.0 (https://openweathermap.org/api/one-call-3), "Current and forecast
 * weather data": `GET https://api.openweathermap.org/data/3.0/onecall?lat=&lon=&appid=&units=metric
 * &exclude=minutely,alerts`. With `units=metric` temperatures are °C and wind m/s; `visibility` is in
 * meters, `pop` a probability 0..1, `pressure` sea-level hPa, times Unix seconds (UTC).
 */

export const ONE_CALL_URL = "https://api.openweathermap.org/data/3.0/onecall";
export const ATTRIBUTION = {
  attribution: "Weather data by OpenWeather",
  attribution_uri: "https://openweathermap.org/",
};

/** A condition of One Call's `weather` array. */
interface OneCallCondition {
  id: number;
  main: string;
  description: string;
  icon: string;
}

/** The members the mapping reads; One Call sends more. */
interface OneCallReading {
  dt: number;
  pressure?: number;
  humidity?: number;
  dew_point?: number;
  visibility?: number;
  wind_speed?: number;
  wind_deg?: number;
  wind_gust?: number;
  pop?: number;
  weather?: OneCallCondition[];
}

export interface OneCallResponse {
  lat: number;
  lon: number;
  timezone: string;
  timezone_offset: number;
  current?: OneCallReading & { temp?: number };
  hourly?: (OneCallReading & { temp?: number })[];
  daily?: (OneCallReading & { temp?: { day?: number } })[];
}

const HOUR_MS = 3_600_000;
const HALF_DAY_MS = 12 * HOUR_MS;

/**
 * The entries of a One Call answer that overlap the window: the hourly forecasts (each covers its hour)
 * and, where the window lies beyond them, the daily ones (each read at local noon, covering its day).
 * Empty when the answer has nothing for the window (the past, or beyond 8 days).
 */
export function forecastFromOneCall(body: OneCallResponse, window: TimeWindow): Forecast {
  const overlaps = (from: number, to: number, start: number) => from <= window.end && to > start;
  const hourly = (body.hourly ?? []).filter((h) =>
    overlaps(h.dt * 1000, h.dt * 1000 + HOUR_MS, window.start),
  );
  // Days only for the part of the window that the hours do not reach.
  const hoursEnd = Math.max(0, ...(body.hourly ?? []).map((h) => h.dt * 1000 + HOUR_MS));
  const dailyStart = Math.max(window.start, hoursEnd);
  const daily = (body.daily ?? []).filter(
    (d) =>
      dailyStart <= window.end && overlaps(d.dt * 1000 - HALF_DAY_MS, d.dt * 1000 + HALF_DAY_MS, dailyStart),
  );
  return {
    weather: [
      ...hourly.map((h) => update(body.timezone, h, h.temp ?? null)),
      ...daily.map((d) => update(body.timezone, d, d.temp?.day ?? null)),
    ],
    ...ATTRIBUTION,
  };
}

function update(timezone: string, reading: OneCallReading, temperature: number | null): WeatherUpdate {
  const condition = reading.weather?.[0];
  return {
    time: new Date(reading.dt * 1000).toISOString(),
    timezone,
    condition: condition?.description ?? "",
    icon: condition?.icon ?? null,
    wind: {
      heading: reading.wind_deg ?? null,
      speed: reading.wind_speed ?? null,
      gusting: reading.wind_gust ?? null,
    },
    // Whole percents: the Kotlin SDK reads them as integers.
    humidity: reading.humidity === undefined ? null : Math.round(reading.humidity),
    visibility: reading.visibility === undefined ? null : reading.visibility / 1000,
    precipitation: reading.pop === undefined ? null : Math.round(reading.pop * 100),
    temperature,
    dew_point: reading.dew_point ?? null,
    mslp: reading.pressure ?? null,
  };
}

const TIMEOUT_MS = 10_000;

/** The One Call adapter: one request per forecast, through the fetch it is given. */
export function openWeatherMap(
  settings: { apiKey: string; url?: string },
  fetchFn: typeof fetch,
): WeatherProvider {
  return {
    name: "openweathermap",
    async forecast(place: Place, window: TimeWindow): Promise<Forecast> {
      const url = new URL(settings.url || ONE_CALL_URL);
      url.searchParams.set("lat", String(place.latitude));
      url.searchParams.set("lon", String(place.longitude));
      url.searchParams.set("units", "metric");
      url.searchParams.set("exclude", "minutely,alerts");
      url.searchParams.set("appid", settings.apiKey);
      let response: Response;
      try {
        response = await fetchFn(url.toString(), {
          headers: { Accept: "application/json" },
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (error) {
        throw new WeatherUnavailable(
          `OpenWeather unreachable: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!response.ok) {
        // One Call's errors are {cod, message}; the key never appears in what we pass on.
        const detail = (await response.json().catch(() => null)) as { message?: unknown } | null;
        const message = typeof detail?.message === "string" ? `: ${detail.message}` : "";
        throw new WeatherUnavailable(`OpenWeather answered ${response.status}${message}`);
      }
      const body = (await response.json().catch(() => null)) as OneCallResponse | null;
      if (!body || typeof body.timezone !== "string")
        throw new WeatherUnavailable("OpenWeather answered without a forecast");
      return forecastFromOneCall(body, window);
    },
  };
}
