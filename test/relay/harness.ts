import { telemetrySchema } from "../../proto/messages";
import { namedFields } from "../../proto/records";
import { readConfig } from "../../relay/config";
import { SessionKey } from "../../relay/crypto";
import { Intake } from "../../relay/intake";
import { KeyCache } from "../../relay/keyCache";
import { createLog } from "../../relay/log";
import { relayMetrics } from "../../relay/metrics";
import { SourceFailures } from "../../relay/rateLimit";
import { SessionGuards } from "../../relay/sessionGuard";
import type { Session } from "../../relay/workerClient";

/** The relay's default budgets, read from its own configuration (no flags, no environment). */
export const RELAY_DEFAULTS = (() => {
  const config = readConfig([], { RELAY_SECRET: "test" });
  if (config === "help") throw new Error("no --help was given");
  const { ratePerSession, burstPerSession, failuresPerIp, failureBurstPerIp, lookUpsPerSecond, lookUpBurst } =
    config;
  return { ratePerSession, burstPerSession, failuresPerIp, failureBurstPerIp, lookUpsPerSecond, lookUpBurst };
})();

/** A forwarded row, spelled out for assertions. */
export interface Forwarded {
  flight_id: string;
  session_id: string;
  datagram: string;
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
export function intakeHarness(
  options: {
    failuresPerIp?: number;
    failureBurstPerIp?: number;
    ratePerSession?: number;
    burstPerSession?: number;
    lookUpsPerSecond?: number;
    lookUpBurst?: number;
    retryAfterMs?: number;
    /** How long a look-up takes (ms); 0 answers in a microtask. */
    lookUpMs?: number;
    /** Flight ids worth a look-up (the relay's default shape unless given). */
    flightIds?: RegExp;
    /** Look-ups the key cache runs at once (10 unless given); more wait in its line. */
    maxPendingFetches?: number;
    /** How long "no open session" is cached (ms). */
    negativeTtlMs?: number;
  } = {},
) {
  /** Open sessions by flight; `openedAt` absent: the worker names no start (only the window's end applies). */
  const sessions = new Map<string, { id: string; key: Buffer; openedAt?: number } | null>();
  const forwarded: Forwarded[] = [];
  const lookups: string[] = [];
  const logs: string[] = [];
  const metrics = relayMetrics();
  const keys = new KeyCache(
    async (flightId): Promise<Session | null> => {
      lookups.push(flightId);
      if (options.lookUpMs) await new Promise((r) => setTimeout(r, options.lookUpMs));
      const session = sessions.get(flightId);
      return session
        ? {
            id: session.id,
            key: new SessionKey(session.key),
            openedAt: session.openedAt ?? Number.NEGATIVE_INFINITY,
          }
        : null;
    },
    {
      ttlMs: 60_000,
      negativeTtlMs: options.negativeTtlMs ?? 60_000,
      retryAfterMs: options.retryAfterMs ?? 0,
      maxEntries: 100_000,
      maxPendingFetches: options.maxPendingFetches ?? 10,
      lookUpsPerSecond: options.lookUpsPerSecond ?? 0,
      lookUpBurst: options.lookUpBurst,
    },
  );
  const sources = new SourceFailures(options.failuresPerIp ?? 0, options.failureBurstPerIp ?? 0);
  const intake = new Intake({
    schema: telemetrySchema,
    flightIds: options.flightIds,
    keys,
    sources,
    guards: new SessionGuards({
      perSecond: options.ratePerSession ?? 0,
      burst: options.burstPerSession ?? 0,
      maxSessions: 100_000,
      maxIds: 4_000_000,
    }),
    forward: (
      flightId,
      sessionId,
      [serial, index, type, timestamp, receivedAt, ...values],
      datagram,
      start,
      end,
    ) =>
      forwarded.push({
        flight_id: flightId,
        session_id: sessionId,
        datagram: Buffer.from(datagram.buffer, datagram.byteOffset + start, end - start).toString("base64"),
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
  return { intake, sessions, forwarded, lookups, logs, metrics, keys, sources, dropped, droppedRecords };
}

/**
 * A flight id of the shape the worker issues (`flight|` and 22 base62 characters), named for a test:
 * the tag's letters and digits padded with Z (so `nat1` and `nat10` stay apart).
 */
export function flightIdOf(tag: string): string {
  const name = tag.replace(/[^0-9A-Za-z]/g, "").padEnd(22, "Z");
  return `flight|${name.slice(0, 22)}`;
}

/** Lets pending look-ups and their continuations run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
