import type { Outcome } from "../dss/outcome";
import { ridDssOf } from "../dss/ridDss";
import type { Bindings } from "../env";
import { RID_SCOPES } from "../rid/constants";
import { isaExtents, notification, type Subscriber, subscribersOf, type Volume4D } from "../rid/dss";
import {
  AuthorityUnavailable,
  type Fetch,
  peerUrl,
  tellPeer,
  type UssAuthorityConfig,
  ussRequest,
} from "./ussAuthority";

/**
 * Registration of this Service Provider's Identification Service Areas in an F3411-22a DSS: by
 * default this service's own (worker/dss/ridDss.ts, called through its binding, no token needed);
 * `RID_DSS_BASE_URL` (another DSS's `/rid/v2` base) points elsewhere, `none` registers nowhere.
 * Calls to another DSS and the subscribers' notifications carry the authority's tokens
 * (worker/services/ussAuthority.ts); `RID_USS_BASE_URL` is this service's `/rid/v2` base as others
 * reach it (default: PUBLIC_URL's).
 */

export type RidDssConfig = UssAuthorityConfig &
  Pick<Bindings, "RID_DSS_BASE_URL" | "RID_USS_BASE_URL" | "PUBLIC_URL">;

/** The owner of this service's ISAs in its own DSS (another DSS names the token's subject instead). */
export const OWN_ISA_OWNER = "windsock";

/** Where ISAs are registered: another DSS's `/rid/v2` base, this service's own DSS, or nowhere. */
export type DssTarget = { kind: "outside"; base: string } | { kind: "own" } | { kind: "none" };

export function dssTarget(config: RidDssConfig): DssTarget {
  const base = config.RID_DSS_BASE_URL?.trim();
  if (!base) return { kind: "own" };
  if (base === "none") return { kind: "none" };
  return { kind: "outside", base: base.replace(/\/$/, "") };
}

/** This service's `/rid/v2` base as display providers reach it, when known without a request. */
export function ussBaseUrl(config: RidDssConfig): string | undefined {
  if (config.RID_USS_BASE_URL) return config.RID_USS_BASE_URL;
  return config.PUBLIC_URL ? `${config.PUBLIC_URL.replace(/\/$/, "")}/rid/v2` : undefined;
}

export class DssUnavailable extends Error {
  /** The DSS's (or token endpoint's) HTTP status; undefined when it could not be reached. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface RegisteredIsa {
  id: string;
  version: string;
}

/** One request with a Service Provider's token; an authority that cannot be asked is the DSS's problem here. */
async function call(config: RidDssConfig, url: string, method: string, body: unknown, fetcher: Fetch) {
  try {
    return await ussRequest(config, url, method, RID_SCOPES.serviceProvider, body, fetcher);
  } catch (err) {
    if (err instanceof AuthorityUnavailable) throw new DssUnavailable(err.message, err.status);
    throw err;
  }
}

/** Notifies each subscriber; a subscriber that is down does not undo the change (logged). */
async function notifyAll(
  config: RidDssConfig,
  isaId: string,
  subscribers: Subscriber[],
  serviceArea: unknown,
  extents: Volume4D | undefined,
  fetcher: Fetch,
): Promise<void> {
  await Promise.all(
    subscribers.map((s) =>
      tellPeer(
        config,
        peerUrl(s.url, `/uss/identification_service_areas/${isaId}`),
        RID_SCOPES.serviceProvider,
        notification(s, serviceArea, extents),
        "ISA notification",
        fetcher,
      ),
    ),
  );
}

export function dssConfigured(env: Bindings): boolean {
  return dssTarget(env).kind !== "none";
}

type Answer = { ok: boolean; status: number; body: unknown };

/**
 * One ISA request (`GET`, `PUT` or `DELETE` of `…/dss/identification_service_areas/{id}[/{version}]`)
 * to the configured DSS: over HTTP to another one, through the binding to this service's own.
 */
async function isaRequest(
  env: Bindings,
  method: "GET" | "PUT" | "DELETE",
  id: string,
  version: string | null,
  body: { extents: Volume4D; uss_base_url: string } | undefined,
  fetcher: Fetch,
): Promise<Answer> {
  const config = env;
  const target = dssTarget(config);
  if (target.kind === "none") throw new DssUnavailable("RID_DSS_BASE_URL is none");
  if (target.kind === "outside") {
    const url = [`${target.base}/dss/identification_service_areas`, id, ...(version ? [version] : [])].join(
      "/",
    );
    return call(config, url, method, body, fetcher);
  }
  const dss = ridDssOf(env);
  // Over RPC the union's members lose their common shape; every one is an Outcome.
  const outcome = (
    method === "GET"
      ? await dss.getIsa(id)
      : method === "PUT"
        ? await dss.putIsa(OWN_ISA_OWNER, id, version ?? undefined, body!)
        : await dss.deleteIsa(OWN_ISA_OWNER, id, version ?? "")
  ) as Outcome<unknown>;
  return outcome.ok
    ? { ok: true, status: 200, body: outcome.value }
    : { ok: false, status: outcome.status, body: { message: outcome.message } };
}

/** Creates the ISA covering `points` from `start` to `end`; null when RID_DSS_BASE_URL is none. */
export async function registerIsa(
  env: Bindings,
  isaId: string,
  points: { lat: number; lng: number; alt: number }[],
  start: number,
  end: number,
  ownBaseUrl: string,
  fetcher: Fetch = fetch,
): Promise<RegisteredIsa | null> {
  if (!dssConfigured(env)) return null;
  return putIsa(env, isaId, isaExtents(points, start, end), null, ownBaseUrl, fetcher);
}

/**
 * Creates (`version` null) or updates (at `version`) the ISA with `extents`, then notifies the
 * subscribers the DSS names. Throws DssUnavailable (with the DSS's status when it answered).
 */
export async function putIsa(
  env: Bindings,
  isaId: string,
  extents: Volume4D,
  version: string | null,
  ownBaseUrl: string,
  fetcher: Fetch = fetch,
): Promise<RegisteredIsa> {
  const config = env;
  const res = await isaRequest(
    env,
    "PUT",
    isaId,
    version,
    { extents, uss_base_url: ussBaseUrl(config) || ownBaseUrl },
    fetcher,
  );
  const area = (res.body as { service_area?: { version?: unknown } } | null)?.service_area;
  if (!res.ok || typeof area?.version !== "string")
    throw new DssUnavailable(`the DSS answered ${res.status}`, res.status);
  await notifyAll(config, isaId, subscribersOf(res.body), area, extents, fetcher);
  return { id: isaId, version: area.version };
}

/**
 * Deletes a registered ISA and notifies its subscribers. An ISA the DSS no longer has (404) counts
 * as deleted; anything else that fails throws DssUnavailable.
 */
export async function deleteIsa(env: Bindings, isa: RegisteredIsa, fetcher: Fetch = fetch): Promise<void> {
  const config = env;
  if (dssTarget(config).kind === "none") return;
  const res = await isaRequest(env, "DELETE", isa.id, isa.version, undefined, fetcher);
  if (res.status === 404) return;
  if (!res.ok) throw new DssUnavailable(`the DSS answered ${res.status}`, res.status);
  await notifyAll(config, isa.id, subscribersOf(res.body), undefined, undefined, fetcher);
}

/** The ISA's current version at the DSS (after a 409), or null when the DSS does not have it. */
export async function isaVersion(
  env: Bindings,
  isaId: string,
  fetcher: Fetch = fetch,
): Promise<string | null> {
  const res = await isaRequest(env, "GET", isaId, null, undefined, fetcher);
  if (res.status === 404) return null;
  const version = (res.body as { service_area?: { version?: unknown } } | null)?.service_area?.version;
  if (!res.ok || typeof version !== "string")
    throw new DssUnavailable(`the DSS answered ${res.status}`, res.status);
  return version;
}

/** Deletes a registered ISA and notifies its subscribers; a DSS that is down is logged, not fatal. */
export async function removeIsa(env: Bindings, isa: RegisteredIsa, fetcher: Fetch = fetch): Promise<void> {
  try {
    await deleteIsa(env, isa, fetcher);
  } catch (err) {
    console.error(
      JSON.stringify({ level: "warn", msg: "ISA deletion failed", isa: isa.id, error: String(err) }),
    );
  }
}
