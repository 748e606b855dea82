import { type Place, WeatherUnavailable, type WeatherUpdate } from "../domain/weather/forecast";
import { type WeatherSettings, weatherProviderFrom } from "../domain/weather/provider";

/** Weather for the status answers: the configured provider's entry for an instant, or why there is none. */

/** The provider's fetch, read at call time (tests stand in for the provider's API by replacing it). */
export const providerFetch: typeof fetch = (input, init) => fetch(input, init);

export async function weatherAt(
  settings: WeatherSettings,
  place: Place,
  time: number,
): Promise<{ weather: WeatherUpdate } | { unavailable: string }> {
  const setup = weatherProviderFrom(settings, providerFetch);
  if ("unavailable" in setup) return setup;
  try {
    const forecast = await setup.provider.forecast(place, { start: time, end: time });
    const weather = forecast.weather[0];
    return weather ? { weather } : { unavailable: "The weather provider has no forecast for that time" };
  } catch (error) {
    if (error instanceof WeatherUnavailable) return { unavailable: error.message };
    throw error;
  }
}
