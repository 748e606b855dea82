/**
 * Which JSend failures each operation of the document can really answer. Routes declare the whole
 * set through `responses()` (lib/openapi.ts); the document keeps, per operation, only those this
 * service can produce there:
 * - 400 when the operation takes parameters or a body (validation names every bad field);
 * - 401 and 403 when it is called with an API key: a missing or invalid key or token, and a browser
 *   origin the application does not allow (middleware/cors.ts), beside the reasons listed below;
 * - 404 and 409 only where listed below, with what is missing or in the way;
 * - 429 everywhere but the uncounted liveness check (keys, addresses and tickets are rate limited).
 * test/worker/openapi.responses.test.ts holds these lists to the routes: every listed operation
 * exists, and each failure it provokes for real is one its operation declares.
 */

/** Operations that look a record up, and what they answer 404 for. */
export const NOT_FOUND: Record<string, string> = {
  "GET /flight/v2/plan/{plan_id}": "no such flight plan in this application",
  "PATCH /flight/v2/plan/{plan_id}": "no such flight plan in this application",
  "DELETE /flight/v2/plan/{plan_id}": "no such flight plan in this application",
  "POST /flight/v2/plan/{plan_id}/submit": "no such flight plan in this application",
  "GET /flight/v2/plan/{plan_id}/briefing": "no such flight plan in this application",
  "GET /flight/v2/plan/batch/authorizations": "a flight plan among `flight_plan_ids` does not exist",
  "GET /flight/v2/{flight_id}": "no such flight, or another pilot's private one",
  "DELETE /flight/v2/{flight_id}": "no such flight",
  "POST /flight/v2/{flight_id}/delete": "no such flight",
  "POST /flight/v2/{flight_id}/end": "no such flight",
  "GET /flight/v2/{flight_id}/plan": "no such flight, or it was made without a plan",
  "POST /flight/v2/{flight_id}/start-comm": "no such flight",
  "POST /flight/v2/{flight_id}/end-comm": "no such flight",
  "GET /flight/v2/{flight_id}/telemetry": "no such flight, or another pilot's private one",
  "POST /flight/v2/{flight_id}/telemetry": "no such flight, or another pilot's private one",
  "GET /archive/v1/telemetry/position": "no flight `flight_id`, or another pilot's private one",
  "GET /flight/v2/{flight_id}/telemetry/stream": "no such flight, or another pilot's private one",
  "POST /flight/v2/{flight_id}/ticket": "no such flight, or another pilot's private one",
  "GET /flight/v2/{flight_id}/conformance": "no such flight, or another pilot's private one",
  "GET /flight/v2/{flight_id}/live": "no such flight, or another pilot's private one",
  "GET /flight/v2/{flight_id}/briefing": "no such flight, or it was made without a plan",
  "GET /pilot/v2/{id}": "no such pilot in this application",
  "PATCH /pilot/v2/{id}": "no such pilot in this application",
  "POST /pilot/v2/{id}/phone/send_token": "no such pilot in this application",
  "POST /pilot/v2/{id}/phone/verify_token": "no such pilot in this application",
  "POST /pilot/v2/{id}/email/send_token": "no such pilot in this application",
  "POST /pilot/v2/{id}/email/verify_token": "no such pilot in this application",
  "GET /aircraft/v2/model/{id}": "no such aircraft model",
  "POST /pilot/v2/{id}/aircraft": "no such aircraft model",
  "GET /pilot/v2/{id}/aircraft/{aircraft_id}": "no such aircraft of this pilot",
  "PATCH /pilot/v2/{id}/aircraft/{aircraft_id}": "no such aircraft of this pilot, or no such model",
  "DELETE /pilot/v2/{id}/aircraft/{aircraft_id}": "no such aircraft of this pilot",
  "GET /webhooks/v1/conformance": "the application has no webhook",
  "DELETE /webhooks/v1/conformance": "the application has no webhook",
  "GET /rules/v1/{ruleset_id}": "no such ruleset",
  "GET /rules/v1/{flight_plan_id}/evaluation": "no such flight plan in this application",
  "GET /advisory/v1/airspace/{flight_plan_id}": "no such flight plan in this application",
  "GET /airspace/v2/{id}": "no such airspace",
  "GET /elevation/v1/ele/carpet": "no elevation data anywhere in the rectangle",
  "POST /elevation/v1/ele/carpet": "no elevation data anywhere in the rectangle",
  "POST /auth/v1/key/revoke": "the key was revoked by another request meanwhile",
  "GET /agreements/v2/agreement/{agreement_id}": "no such agreement",
  "GET /agreements/v2/agreement/{agreement_id}/pdf": "no such agreement",
  "GET /agreements/v2/agreement/{agreement_id}/agreed": "no such agreement",
  "POST /agreements/v2/agreement/{agreement_id}/agree": "no such agreement",
  "GET /dev/v1/db-ping": "outside development: the development routes do not exist",
  "GET /dev/v1/outbox": "outside development: the development routes do not exist",
};

/** Operations a record's state can refuse, and why. */
export const CONFLICT: Record<string, string> = {
  "PATCH /flight/v2/plan/{plan_id}": "the plan was submitted and can no longer change",
  "POST /flight/v2/plan/{plan_id}/submit": "the plan was already submitted",
  "DELETE /flight/v2/{flight_id}": "the flight is active: end it first",
  "POST /flight/v2/{flight_id}/delete": "the flight is active: end it first",
  "POST /flight/v2/{flight_id}/start-comm": "the flight has ended",
  "POST /pilot/v2/{id}/phone/send_token": "the pilot has no phone number yet",
  "POST /pilot/v2/{id}/email/send_token": "the pilot has no email address yet",
};

/** Reasons for 403 beyond a refused browser origin. */
export const FORBIDDEN: Record<string, string> = {
  "GET /flight/v2/plan/{plan_id}": "another pilot's plan",
  "PATCH /flight/v2/plan/{plan_id}": "another pilot's plan",
  "DELETE /flight/v2/plan/{plan_id}": "another pilot's plan",
  "POST /flight/v2/plan/{plan_id}/submit": "another pilot's plan",
  "GET /flight/v2/plan/{plan_id}/briefing": "another pilot's plan",
  "GET /flight/v2/plan/batch/authorizations": "another pilot's plan among `flight_plan_ids`",
  "GET /rules/v1/{flight_plan_id}/evaluation": "another pilot's plan",
  "DELETE /flight/v2/{flight_id}": "another pilot's flight",
  "POST /flight/v2/{flight_id}/delete": "another pilot's flight",
  "POST /flight/v2/{flight_id}/end": "another pilot's flight",
  "POST /flight/v2/{flight_id}/start-comm": "another pilot's flight",
  "POST /flight/v2/{flight_id}/end-comm": "another pilot's flight",
  "GET /flight/v2/{flight_id}/plan": "another pilot's public flight",
  "GET /flight/v2/{flight_id}/telemetry": "another pilot's public flight",
  "POST /flight/v2/{flight_id}/telemetry": "another pilot's public flight",
  "GET /archive/v1/telemetry/position": "another pilot's public flight",
  "GET /flight/v2/{flight_id}/telemetry/stream": "a ticket for another flight",
  "GET /flight/v2/{flight_id}/live": "a ticket for another flight",
  "GET /flight/v2/{flight_id}/briefing": "a ticket for another flight",
  "POST /flight/v2/point": "`pilot_id` is not the token's pilot",
  "POST /flight/v2/polygon": "`pilot_id` is not the token's pilot",
  "POST /flight/v2/path": "`pilot_id` is not the token's pilot",
  "PATCH /pilot/v2/{id}": "the token is another pilot's",
  "POST /pilot/v2/{id}/phone/send_token": "the token is another pilot's",
  "POST /pilot/v2/{id}/phone/verify_token": "the token is another pilot's",
  "POST /pilot/v2/{id}/email/send_token": "the token is another pilot's",
  "POST /pilot/v2/{id}/email/verify_token": "the token is another pilot's",
  "POST /pilot/v2/{id}/aircraft": "the token is another pilot's",
  "PATCH /pilot/v2/{id}/aircraft/{aircraft_id}": "the token is another pilot's",
  "DELETE /pilot/v2/{id}/aircraft/{aircraft_id}": "the token is another pilot's",
};

/** The liveness check: no key, and no rate limit (middleware/publicRateLimit.ts). */
const UNCOUNTED = new Set(["GET /health"]);

const ORIGIN_REFUSED = "A browser origin this application does not allow (CORS)";

const fail = (code: number, message: string, errors: { name: string; message: string }[] = []) => ({
  status: "fail",
  data: { code, message, errors },
});

/** Real answers of this service, one per status (the 400 is GET /elevation/v1/ele?points=91,-84.2's). */
export const FAILURE_EXAMPLES: Record<string, ReturnType<typeof fail>> = {
  "400": fail(400, "Invalid points: latitude 91 of point 1 is outside -90..90", [
    { name: "points", message: "latitude 91 of point 1 is outside -90..90" },
  ]),
  "401": fail(401, "Missing X-API-Key header: send the API key of your application"),
  "403": fail(403, "This flight belongs to another pilot"),
  "404": fail(404, "Flight not found"),
  "409": fail(409, "This flight plan was already submitted"),
  "429": fail(429, "Rate limit of 1200 requests a minute from this address exceeded"),
};

interface Operation {
  parameters?: unknown[];
  requestBody?: unknown;
  security?: Record<string, unknown>[];
  responses: Record<string, { description?: string } & Record<string, unknown>>;
}

/** The generic set as `responses()` declares it: the operations this prunes. */
const GENERIC = ["400", "401", "403", "404", "409", "429"];

/** Keeps, on every operation declared with `responses()`, only the failures it can answer. */
export function keepProducibleFailures(paths: Record<string, Record<string, unknown>>): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, value] of Object.entries(item)) {
      const op = value as Operation;
      if (typeof op !== "object" || op === null || !op.responses) continue;
      if (!GENERIC.every((status) => status in op.responses)) continue;
      const name = `${method.toUpperCase()} ${path}`;
      const withKey = (op.security ?? []).some((s) => "ApiKey" in s);
      const keep: Record<string, boolean> = {
        "400": (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined,
        "401": withKey,
        "403": withKey || name in FORBIDDEN,
        "404": name in NOT_FOUND,
        "409": name in CONFLICT,
        "429": !UNCOUNTED.has(name),
      };
      for (const status of GENERIC) {
        const response = op.responses[status];
        if (!response) continue;
        if (!keep[status]) delete op.responses[status];
        // Its own content object: the generic one is shared by every operation.
        else op.responses[status] = withExample(response, FAILURE_EXAMPLES[status]);
      }
      const say = (status: string, text: string) => {
        const response = op.responses[status];
        if (response) op.responses[status] = { ...response, description: text };
      };
      say("403", [withKey ? ORIGIN_REFUSED : undefined, FORBIDDEN[name]].filter(Boolean).join("; or "));
      if (NOT_FOUND[name]) say("404", capitalized(NOT_FOUND[name]));
      if (CONFLICT[name]) say("409", capitalized(CONFLICT[name]));
    }
  }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function withExample<T extends Record<string, unknown>>(response: T, example: unknown): T {
  const content = response.content as Record<string, { schema: unknown }> | undefined;
  const json = content?.["application/json"];
  if (!json) return response;
  return { ...response, content: { ...content, "application/json": { ...json, example } } };
}
