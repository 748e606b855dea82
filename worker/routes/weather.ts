import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { timeWindowFrom } from "../domain/airspace/inputs";
import { WeatherUnavailable } from "../domain/weather/forecast";
import { weatherProviderFrom } from "../domain/weather/provider";
import { badRequest } from "../lib/errors";
import { errorBody, success } from "../lib/jsend";
import { responses, security, timeInput } from "../lib/openapi";
import { providerFetch } from "../services/weather";

const Wind = z.object({
  heading: z.number().nullable(),
  speed: z.number().nullable(),
  gusting: z.number().nullable(),
});

export const WeatherUpdate = z
  .object({
    time: z.string(),
    timezone: z.string().openapi({ example: "America/Phoenix" }),
    condition: z.string().openapi({ example: "broken clouds" }),
    icon: z.string().nullable().openapi({ description: "The provider's icon code" }),
    wind: Wind.openapi({ description: "heading in degrees (from), speed and gusting in m/s" }),
    humidity: z.number().nullable().openapi({ description: "percent" }),
    visibility: z.number().nullable().openapi({ description: "kilometers" }),
    precipitation: z.number().nullable().openapi({ description: "probability, percent" }),
    temperature: z.number().nullable().openapi({ description: "°C" }),
    dew_point: z.number().nullable().openapi({ description: "°C" }),
    mslp: z.number().nullable().openapi({ description: "mean sea level pressure, hPa" }),
  })
  .openapi("WeatherUpdate");

const weather = createRoute({
  method: "get",
  path: "/advisory/v1/weather",
  tags: ["Rules and advisories"],
  summary:
    "The configured provider's forecast at a place: hourly entries for the window (daily ones beyond 48 hours)",
  security,
  request: {
    query: z.object({
      latitude: z.coerce.number().min(-90).max(90),
      longitude: z.coerce.number().min(-180).max(180),
      start: timeInput.optional().openapi({ description: "Default now" }),
      end: timeInput.optional().openapi({ description: "Default the start" }),
    }),
  },
  responses: {
    ...responses(
      z.object({
        weather: z.array(WeatherUpdate),
        attribution: z.string(),
        attribution_uri: z.string(),
        dew_point: z
          .number()
          .nullable()
          .openapi({ description: "The first entry's, where the C++ SDK reads it" }),
      }),
      "Forecast entries, earliest first",
    ),
    502: { description: "The weather provider refused or could not be reached (JSend error)" },
    503: {
      description: "No weather provider is configured: WEATHER_PROVIDER, WEATHER_API_KEY (JSend error)",
    },
  },
});

export const weatherRoutes = createRouter().openapi(weather, async (c) => {
  const query = c.req.valid("query");
  const window = timeWindowFrom(query.start, query.end);
  const setup = weatherProviderFrom(c.env, providerFetch);
  if ("unavailable" in setup) return c.json(errorBody(503, setup.unavailable), 503);
  let forecast: Awaited<ReturnType<typeof setup.provider.forecast>>;
  try {
    forecast = await setup.provider.forecast(query, window);
  } catch (error) {
    if (error instanceof WeatherUnavailable) return c.json(errorBody(502, error.message), 502);
    throw error;
  }
  if (forecast.weather.length === 0)
    throw badRequest("start", "no forecast covers this window: forecasts reach from now to 8 days ahead");
  return success(c, { ...forecast, dew_point: forecast.weather[0]!.dew_point });
});
