/**
 * The public routes at their typical input, as a mobile client calls them: the one list that the
 * round-trip test (test/worker/roundTrips.test.ts) counts and the latency bench (latency.ts) times.
 * Pure: it only builds requests and reads answers through the `send` it is given.
 */

export interface TypicalRequest {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  /** Sends the pilot's token beside the API key. */
  withToken?: boolean;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

export type Send = (request: TypicalRequest) => Promise<Answer>;

export interface TypicalRoute {
  /** `METHOD /path` as the API documents it. */
  name: string;
  /** Reads only (may use a read replica) or writes. */
  kind: "read" | "write";
  /**
   * What the measured request needs that it would use up or change (a fresh flight to end, a plan
   * to submit): made before each request, not measured.
   */
  prepare?: (send: Send) => Promise<string>;
  request(made: string): TypicalRequest;
}

const hour = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Santa Monica, California: a small square and its centre, [longitude, latitude]. */
const [LNG, LAT] = [-118.485, 34.015];
const AREA = {
  type: "Polygon",
  coordinates: [
    [
      [-118.49, 34.01],
      [-118.48, 34.01],
      [-118.48, 34.02],
      [-118.49, 34.02],
      [-118.49, 34.01],
    ],
  ],
};

function dataOf(what: string, answer: Answer): Record<string, any> {
  if (answer.status !== 200) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json.data;
}

export const planBody = () => ({
  takeoff_latitude: LAT,
  takeoff_longitude: LNG,
  start_time: iso(Date.now() + hour),
  end_time: iso(Date.now() + 2 * hour),
  max_altitude_agl: 100,
  buffer: 0,
  geometry: AREA,
});

const pointBody = () => ({
  latitude: LAT,
  longitude: LNG,
  buffer: 100,
  max_altitude: 60,
  start_time: iso(Date.now() - 60_000),
  end_time: iso(Date.now() + hour),
});

/** A fresh flight of the pilot, under way. */
async function newFlight(send: Send): Promise<string> {
  const answer = await send({ method: "POST", path: "/flight/v2/point", body: pointBody(), withToken: true });
  return dataOf("creating a flight", answer).id;
}

/** A fresh plan of the pilot, not yet submitted. */
async function newPlan(send: Send): Promise<string> {
  const answer = await send({ method: "POST", path: "/flight/v2/plan", body: planBody(), withToken: true });
  return dataOf("creating a plan", answer).id;
}

/** One flight made once per isolate of the caller and read again: the reads' typical subject. */
function sharedFlight() {
  let made: Promise<string> | undefined;
  return (send: Send) => {
    made ??= newFlight(send);
    return made;
  };
}

/** One plan, made once, for the reads of a plan. */
function sharedPlan() {
  let made: Promise<string> | undefined;
  return (send: Send) => {
    made ??= newPlan(send);
    return made;
  };
}

/** The typical routes; each call gives a list with its own shared flight and plan. */
export function typicalRoutes(): TypicalRoute[] {
  const flight = sharedFlight();
  const plan = sharedPlan();
  return [
    {
      name: "GET /pilot/v2/profile",
      kind: "read",
      request: () => ({ method: "GET", path: "/pilot/v2/profile", withToken: true }),
    },
    {
      name: "GET /flight/v2/{flight_id}",
      kind: "read",
      prepare: flight,
      request: (id) => ({ method: "GET", path: `/flight/v2/${id}`, withToken: true }),
    },
    {
      name: "GET /flight/v2 (the pilot's, 25)",
      kind: "read",
      prepare: flight,
      request: () => ({ method: "GET", path: "/flight/v2?limit=25", withToken: true }),
    },
    {
      name: "GET /flight/v2/plan/{plan_id}",
      kind: "read",
      prepare: plan,
      request: (id) => ({ method: "GET", path: `/flight/v2/plan/${id}`, withToken: true }),
    },
    {
      name: "GET /flight/v2/plan/{plan_id}/briefing",
      kind: "read",
      prepare: plan,
      request: (id) => ({ method: "GET", path: `/flight/v2/plan/${id}/briefing`, withToken: true }),
    },
    {
      name: "POST /rules/v1 (an area)",
      kind: "read",
      request: () => ({ method: "POST", path: "/rules/v1", body: { geometry: AREA } }),
    },
    {
      name: "GET /rules/v1/{ruleset_id}",
      kind: "read",
      request: () => ({ method: "GET", path: "/rules/v1/usa_part_107" }),
    },
    {
      name: "GET /status/v2/point",
      kind: "read",
      request: () => ({
        method: "GET",
        path: `/status/v2/point?latitude=${LAT}&longitude=${LNG}&buffer=1000`,
      }),
    },
    {
      name: "GET /advisory/v1/airspace (an area)",
      kind: "read",
      request: () => ({
        method: "GET",
        path: `/advisory/v1/airspace?rulesets=usa_part_107&geometry=${encodeURIComponent(JSON.stringify(AREA))}`,
      }),
    },
    {
      name: "GET /aircraft/v2/manufacturer",
      kind: "read",
      request: () => ({ method: "GET", path: "/aircraft/v2/manufacturer" }),
    },
    {
      name: "POST /flight/v2/point",
      kind: "write",
      request: () => ({ method: "POST", path: "/flight/v2/point", body: pointBody(), withToken: true }),
    },
    {
      name: "POST /flight/v2/plan",
      kind: "write",
      request: () => ({ method: "POST", path: "/flight/v2/plan", body: planBody(), withToken: true }),
    },
    {
      name: "POST /flight/v2/plan/{plan_id}/submit",
      kind: "write",
      prepare: newPlan,
      request: (id) => ({ method: "POST", path: `/flight/v2/plan/${id}/submit`, withToken: true }),
    },
    {
      name: "POST /flight/v2/{flight_id}/start-comm",
      kind: "write",
      prepare: newFlight,
      request: (id) => ({ method: "POST", path: `/flight/v2/${id}/start-comm`, withToken: true }),
    },
    {
      name: "POST /flight/v2/{flight_id}/end",
      kind: "write",
      prepare: newFlight,
      request: (id) => ({ method: "POST", path: `/flight/v2/${id}/end`, withToken: true }),
    },
  ];
}
