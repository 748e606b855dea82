import { beforeAll } from "vitest";
import { loadAirspaceFixtures } from "./airspaceFixtures";
import { call, createAccount } from "./helpers";

/**
 * The airspace routes as the happy-path and error tests of each area call them, with the API key of
 * the file's account (read when the request is made, after `beforeAll` created it).
 */

type Query = Record<string, string | number | boolean | object>;

/** Query parameters as a client writes them: objects (geometries) as JSON text. */
const asQuery = (query: Query) =>
  new URLSearchParams(
    Object.entries(query).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)]),
  );

export function airspaceRequests(apiKey: () => string) {
  const get = (path: string) => call(path, { apiKey: apiKey() });
  const post = (path: string, body: unknown) => call(path, { method: "POST", apiKey: apiKey(), body });
  return {
    get,
    /** `POST /advisory/v2/airspace`. */
    v2: (body: Record<string, unknown>) =>
      call("/advisory/v2/airspace", {
        method: "POST",
        apiKey: apiKey(),
        body,
        headers: { Accept: "application/json" },
      }),
    /** `GET /advisory/v1/airspace`. */
    v1: (query: Record<string, string>) => get(`/advisory/v1/airspace?${new URLSearchParams(query)}`),
    /** `POST /rules/v1/` (or another rules path). */
    rules: (body: unknown, path = "/rules/v1/") => post(path, body),
    /** `GET /status/v2/point`. */
    status: (query: Query) => get(`/status/v2/point?${asQuery(query)}`),
    statusGet: (kind: "polygon" | "path" | "point", query: Query) =>
      get(`/status/v2/${kind}?${asQuery(query)}`),
    statusPost: (kind: "polygon" | "path", body: Query) => post(`/status/v2/${kind}`, body),
    /** `GET /airspace/v2/search`. */
    search: (query: Query) => get(`/airspace/v2/search?${asQuery(query)}`),
    searchByBody: (body: Record<string, unknown>) => post("/airspace/v2/search", body),
  };
}

/**
 * The file's airspace session: loads the airspace fixtures and creates the file's account before its
 * tests, and returns the routes bound to that account's key.
 */
export function airspaceSession() {
  const session = { apiKey: "" };
  beforeAll(async () => {
    await loadAirspaceFixtures();
    session.apiKey = (await createAccount()).apiKey;
  });
  return { session, ...airspaceRequests(() => session.apiKey) };
}
