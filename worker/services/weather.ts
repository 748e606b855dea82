import {
  type Forecast,
  type Place,
  type TimeWindow,
  WeatherUnavailable,
  type WeatherUpdate,
} from "../domain/weather/forecast";
import { type WeatherSettings, weatherProviderFrom } from "../domain/weather/provider";

/** Weather from the configured provider: `GET /weather` and the status answers. */

/** The provider's fetch, read at call time (tests stand in for the provider's API by replacing it). */
export const providerFetch: typeof fetch = (input, init) => fetch(input, init);

/** Why there is no forecast: no provider configured (503), or the provider refused or is out of reach (502). */
export type NoForecast = { unconfigured: string } | { unavailable: string };

/** The provider's forecast for a place over a window, or why there is none. */
export async function forecastFor(
  settings: WeatherSettings,
  place: Place,
  window: TimeWindow,
): Promise<{ forecast: Forecast } | NoForecast> {
  const setup = weatherProviderFrom(settings, providerFetch);
  if ("unavailable" in setup) return { unconfigured: setup.unavailable };
  try {
    return { forecast: await setup.provider.forecast(place, window) };
  } catch (error) {
    if (error instanceof WeatherUnavailable) return { unavailable: error.message };
    throw error;
  }
}

/** The status answers' weather: the provider's entry for an instant, or why there is none. */
export async function weatherAt(
  settings: WeatherSettings,
  place: Place,
  time: number,
): Promise<{ weather: WeatherUpdate } | { unavailable: string }> {
  const answer = await forecastFor(settings, place, { start: time, end: time });
  if ("unconfigured" in answer) return { unavailable: answer.unconfigured };
  if ("unavailable" in answer) return answer;
  const weather = answer.forecast.weather[0];
  return weather ? { weather } : { unavailable: "The weather provider has no forecast for that time" };
}
