/**
 * Weather as the SDKs read it (`GET /advisory/v1/weather`, `weather` of the status answer): units are
 * the Kotlin model's — degrees, m/s, percent, kilometers, °C, hPa. Providers map their own answers to it.
 */

export interface Wind {
  /** Degrees the wind comes from. */
  heading: number | null;
  /** m/s */
  speed: number | null;
  /** m/s */
  gusting: number | null;
}

export interface WeatherUpdate {
  /** ISO 8601 (UTC): the start of the hour, or the day's reading, the entry describes. */
  time: string;
  /** IANA name of the location's time zone. */
  timezone: string;
  condition: string;
  icon: string | null;
  wind: Wind;
  /** Percent */
  humidity: number | null;
  /** Kilometers */
  visibility: number | null;
  /** Probability of precipitation, percent. */
  precipitation: number | null;
  /** °C */
  temperature: number | null;
  /** °C */
  dew_point: number | null;
  /** Mean sea level pressure, hPa. */
  mslp: number | null;
}

export interface Forecast {
  weather: WeatherUpdate[];
  attribution: string;
  attribution_uri: string;
}

export interface Place {
  latitude: number;
  longitude: number;
}

/** Epoch ms; `end` ≥ `start`. */
export interface TimeWindow {
  start: number;
  end: number;
}

/** A weather source: the forecast entries that overlap the window, finest first available. */
export interface WeatherProvider {
  readonly name: string;
  forecast(place: Place, window: TimeWindow): Promise<Forecast>;
}

/** The provider refused or could not be reached: no weather, and nothing made up in its place. */
export class WeatherUnavailable extends Error {}

/** The settings a weather provider needs, named in the 503 when they are missing. */
export const WEATHER_SETTINGS = { provider: "WEATHER_PROVIDER", apiKey: "WEATHER_API_KEY" } as const;
