import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../schema";
import { insertFlight as storeFlight } from "../../worker/store/flights";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

export interface TestPilot {
  account: TestAccount;
  apiKey: string;
  token: string;
  pilotId: string;
  /** `/pilot/v2/<id>` with the id percent-encoded, as most clients send it. */
  path: string;
}

/** A pilot with a token, under a new account unless one is given. */
export async function newPilot(userId = "alice", account?: TestAccount): Promise<TestPilot> {
  const owner = account ?? (await createAccount());
  const { token, pilotId } = await tokenFor(owner, userId);
  return {
    account: owner,
    apiKey: owner.apiKey,
    token,
    pilotId,
    path: `/pilot/v2/${encodeURIComponent(pilotId)}`,
  };
}

/** A request as the pilot themself. */
export function asPilot(
  pilot: TestPilot,
  path: string,
  options: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return call(path, { ...options, apiKey: pilot.apiKey, token: pilot.token });
}

/** The newest code the development outbox holds for the pilot on a channel. */
export async function latestCode(pilot: TestPilot, channel: "phone" | "email"): Promise<string> {
  const res = await call(`/dev/v1/outbox?pilot_id=${encodeURIComponent(pilot.pilotId)}`, {
    apiKey: pilot.apiKey,
  });
  const message = res.json.data.find((m: { channel: string }) => m.channel === channel);
  if (!message) throw new Error(`no ${channel} message in the outbox: ${res.text}`);
  return message.token;
}

/** A flight stored as the flight routes store it (with the pilot's flight count); statistics read these. */
export async function insertFlight(pilot: TestPilot, startTime: number, durationMs = 3_600_000) {
  const square = [
    [-84.2, 36.5],
    [-84.19, 36.5],
    [-84.19, 36.51],
    [-84.2, 36.51],
    [-84.2, 36.5],
  ] as [number, number][];
  await storeFlight(drizzle(env.DB, { schema }), {
    id: `flight|${crypto.randomUUID().replace(/-/g, "").slice(0, 22)}`,
    accountId: pilot.account.accountId,
    pilotId: pilot.pilotId,
    latitude: 36.505,
    longitude: -84.195,
    buffer: 0,
    geometry: { type: "Polygon", coordinates: [square] },
    minLat: 36.5,
    minLng: -84.2,
    maxLat: 36.51,
    maxLng: -84.19,
    maxAltitude: 100,
    startTime,
    endTime: startTime + durationMs,
    createdAt: Date.now(),
    public: false,
    notify: false,
    authorizations: [],
  });
}
