import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { badRequest } from "../lib/errors";
import { errorBody, success } from "../lib/jsend";
import { responses, security, timeInput } from "../lib/openapi";
import { Weather } from "../schemas/airspace";
import { timeWindowFrom } from "../schemas/queryFields";
import { forecastFor } from "../services/weather";

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
    ...responses(Weather, "Forecast entries, earliest first"),
    502: { description: "The weather provider refused or could not be reached (JSend error)" },
    503: {
      description: "No weather provider is configured: WEATHER_PROVIDER, WEATHER_API_KEY (JSend error)",
    },
  },
});

export const weatherRoutes = createRouter().openapi(weather, async (c) => {
  const query = c.req.valid("query");
  const window = timeWindowFrom(query.start, query.end);
  const answer = await forecastFor(c.env, query, window);
  if ("unconfigured" in answer) return c.json(errorBody(503, answer.unconfigured), 503);
  if ("unavailable" in answer) return c.json(errorBody(502, answer.unavailable), 502);
  const { forecast } = answer;
  if (forecast.weather.length === 0)
    throw badRequest("start", "no forecast covers this window: forecasts reach from now to 8 days ahead");
  return success(c, { ...forecast, dew_point: forecast.weather[0]!.dew_point });
});
