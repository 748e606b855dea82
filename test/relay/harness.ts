import { SessionKey } from "../../relay/crypto";
import { Intake } from "../../relay/intake";
import { KeyCache } from "../../relay/keyCache";
import { createLog } from "../../relay/log";
import { telemetrySchema } from "../../relay/messages";
import { relayMetrics } from "../../relay/metrics";
import { SourceRateLimit } from "../../relay/rateLimit";
import type { Session } from "../../relay/workerClient";
import { namedFields } from "../../worker/domain/telemetryMessages";

/** A forwarded row, spelled out for assertions. */
export interface Forwarded {
  flight_id: string;
  session_id: string;
  serial: number;
  index: number;
  type: string;
  timestamp: number;
  received_at: number;
  fields: Record<string, number>;
}

/**
 * An Intake wired to an in-memory "worker": `sessions` says which flight has which open session,
 * forwarded records are collected, and look-ups are counted.
 */
export function intakeHarness(options: { ratePerIp?: number; retryAfterMs?: number } = {}) {
  const sessions = new Map<string, { id: string; key: Buffer } | null>();
  const forwarded: Forwarded[] = [];
  const lookups: string[] = [];
  const logs: string[] = [];
  const metrics = relayMetrics();
  const keys = new KeyCache(
    async (flightId): Promise<Session | null> => {
      lookups.push(flightId);
      const session = sessions.get(flightId);
      return session ? { id: session.id, key: new SessionKey(session.key) } : null;
    },
    {
      ttlMs: 60_000,
      negativeTtlMs: 60_000,
      retryAfterMs: options.retryAfterMs ?? 0,
      maxEntries: 1000,
      maxPendingFetches: 10,
    },
  );
  const rate = options.ratePerIp ?? 0;
  const intake = new Intake({
    schema: telemetrySchema,
    keys,
    limiter: new SourceRateLimit(rate, rate),
    forward: (flightId, sessionId, [serial, index, type, timestamp, receivedAt, ...values]) =>
      forwarded.push({
        flight_id: flightId,
        session_id: sessionId,
        serial,
        index,
        type,
        timestamp,
        received_at: receivedAt,
        fields: namedFields(telemetrySchema.byName.get(type)!, values),
      }),
    metrics,
    log: createLog("debug", (line) => logs.push(line)),
  });
  const dropped = (reason: string) => metrics.datagramsDropped.value({ reason });
  const droppedRecords = (reason: string) => metrics.recordsDropped.value({ reason });
  return { intake, sessions, forwarded, lookups, logs, metrics, keys, dropped, droppedRecords };
}

/** Lets pending look-ups and their continuations run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
