import { WEATHER_SETTINGS, type WeatherProvider } from "./forecast";
import { openWeatherMap } from "./openWeatherMap";

/** Which weather provider the settings name, or why there is none (the 503 says it). */

export interface WeatherSettings {
  WEATHER_PROVIDER?: string;
  WEATHER_API_KEY?: string;
  /** The provider's endpoint, for a proxy or a test double; default its public one. */
  WEATHER_API_URL?: string;
}

export const WEATHER_PROVIDERS = ["openweathermap"] as const;

export type WeatherSetup = { provider: WeatherProvider } | { unavailable: string };

export function weatherProviderFrom(settings: WeatherSettings, fetchFn: typeof fetch): WeatherSetup {
  const name = settings.WEATHER_PROVIDER?.trim().toLowerCase();
  if (!name)
    return {
      unavailable: `No weather provider is configured on this server: set ${WEATHER_SETTINGS.provider} (${WEATHER_PROVIDERS.join(", ")}) and ${WEATHER_SETTINGS.apiKey}`,
    };
  if (name !== "openweathermap")
    return {
      unavailable: `${WEATHER_SETTINGS.provider} names an unknown provider "${name}"; supported: ${WEATHER_PROVIDERS.join(", ")}`,
    };
  const apiKey = settings.WEATHER_API_KEY?.trim();
  if (!apiKey)
    return { unavailable: `${WEATHER_SETTINGS.apiKey} is not set: the weather provider needs its key` };
  return { provider: openWeatherMap({ apiKey, url: settings.WEATHER_API_URL?.trim() }, fetchFn) };
}
