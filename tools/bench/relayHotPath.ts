import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildDatagram, KEY_BYTES } from "../../proto/datagram";
import { encodeRecords, telemetrySchema } from "../../proto/messages";
import { SessionKey } from "../../relay/crypto";
import { Forwarder } from "../../relay/forwarder";
import { Intake } from "../../relay/intake";
import { KeyCache } from "../../relay/keyCache";
import { createLog } from "../../relay/log";
import { relayMetrics } from "../../relay/metrics";
import { SourceFailures } from "../../relay/rateLimit";
import { SessionGuards } from "../../relay/sessionGuard";
import { Spool } from "../../relay/spool";
import { position } from "../lib/sampleRecords";

/**
 * The relay's own work per datagram, in this process: intake (framing, replay memory, decryption,
 * decoding) and the forwarder (packing, cutting batches) for one session's datagrams of one Position
 * each, posted to a stub that acknowledges at once. Without the socket and the kernel, and as CPU
 * time rather than a rate, it moves much less with the machine's load than the floods do.
 */

const FLIGHT_ID = "flight|HotPathHotPathHotPathH";
/** Datagrams handed over per turn of the event loop, as a busy socket delivers them. */
const PER_TURN = 64;

/** CPU microseconds (user + system) a datagram, median of `rounds` rounds of `count` datagrams. */
export async function hotPathCpuPerDatagram(count = 200_000, rounds = 5): Promise<number[]> {
  const key = Buffer.alloc(KEY_BYTES, 7);
  const end = Date.now();
  const datagrams = Array.from({ length: count * rounds }, (_, i) =>
    buildDatagram({
      serial: i + 1,
      flightId: FLIGHT_ID,
      key,
      payload: encodeRecords([position(end - 1000)]),
    }),
  );
  const spoolDir = mkdtempSync(path.join(tmpdir(), "relay-hot-path-"));
  const metrics = relayMetrics();
  const log = createLog("error", () => {});
  const forwarder = new Forwarder(
    async (batch) => ({ stored: batch.length, duplicates: 0, refused: [] }),
    new Spool(spoolDir, 64 * 1024 * 1024),
    {
      batchSize: 500,
      batchDelayMs: 200,
      maxQueuedRecords: 200_000,
      maxInFlight: 4,
      retryBaseMs: 250,
      retryMaxMs: 30_000,
    },
    metrics,
    log,
  );
  const session = { id: "hot-path-session", key: new SessionKey(key), openedAt: end - 60_000 };
  const keys = new KeyCache(async () => session, {
    ttlMs: 3_600_000,
    negativeTtlMs: 60_000,
    retryAfterMs: 1000,
    maxEntries: 1000,
    maxPendingFetches: 4,
  });
  const intake = new Intake({
    schema: telemetrySchema,
    keys,
    sources: new SourceFailures(0, 0),
    guards: new SessionGuards({ perSecond: 0, burst: 0, maxSessions: 1000, maxIds: 4_194_304 }),
    forward: (flightId, sessionId, row, datagram, start, stop) =>
      forwarder.enqueue(flightId, sessionId, row, datagram, start, stop),
    metrics,
    log,
  });
  forwarder.start();
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  // The first datagram looks the key up; the rest find it cached.
  intake.handle(datagrams[0]!, "127.0.0.1");
  for (let i = 0; keys.size === 0; i++) {
    if (i > 1000) throw new Error("the hot path's flight found no session");
    await turn();
  }
  const perDatagram: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const first = round * count + 1;
    const last = (round + 1) * count;
    const before = process.cpuUsage();
    for (let i = first; i < last; i++) {
      intake.handle(datagrams[i]!, "127.0.0.1");
      if (i % PER_TURN === 0) await turn();
    }
    await turn();
    const used = process.cpuUsage(before);
    perDatagram.push((used.user + used.system) / (last - first));
  }
  await forwarder.close(Date.now() + 1000);
  rmSync(spoolDir, { recursive: true, force: true });
  const accepted = metrics.datagramsAccepted.value();
  if (accepted !== count * rounds - rounds + 1)
    throw new Error(`the hot path accepted ${accepted} of ${count * rounds - rounds + 1} datagrams`);
  return perDatagram;
}
