import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { IngestResult, SessionRecords } from "../../proto/ingest";
import { isPackedBatch, unpackBatch } from "../../proto/packedBatch";
import { Forwarder, type ForwarderOptions } from "../../relay/forwarder";
import { createLog } from "../../relay/log";
import { relayMetrics } from "../../relay/metrics";
import { Spool } from "../../relay/spool";
import { WorkerError } from "../../relay/workerClient";

const OPTIONS: ForwarderOptions = {
  batchSize: 10,
  batchDelayMs: 20,
  maxQueuedRecords: 1000,
  maxInFlight: 2,
  retryBaseMs: 5,
  retryMaxMs: 20,
};

/** Enqueues one barometer record of the given serial. */
function enqueue(f: Forwarder, serial: number, flightId = "flight|f", sessionId = "session|s"): void {
  f.enqueue(
    flightId,
    sessionId,
    [serial, 0, "barometer", serial, Date.now(), 1000],
    Buffer.from(`d${serial}`),
  );
}

/** A worker that stores by (session, serial, index), and can be switched off. */
function fakeWorker() {
  const stored = new Set<string>();
  const batches: number[] = [];
  const worker = {
    up: true,
    refuse: undefined as WorkerError | undefined,
    stored,
    batches,
    async post(sessions: SessionRecords[]): Promise<IngestResult> {
      await new Promise((r) => setTimeout(r, 1));
      if (worker.refuse) throw worker.refuse;
      if (!worker.up) throw new WorkerError("worker unreachable", true);
      const ids = sessions.flatMap((s) =>
        s.records.map(([serial, index]) => `${s.session_id}/${serial}/${index}`),
      );
      batches.push(ids.length);
      const fresh = ids.filter((id) => !stored.has(id)).length;
      for (const id of ids) stored.add(id);
      return { stored: fresh, duplicates: ids.length - fresh, refused: [] };
    },
  };
  return worker;
}

function forwarder(
  worker: ReturnType<typeof fakeWorker>,
  spoolDir: string,
  options: Partial<ForwarderOptions> = {},
) {
  const metrics = relayMetrics();
  const spool = new Spool(spoolDir, 10 * 1024 * 1024);
  const logs: string[] = [];
  const refused: string[] = [];
  const f = new Forwarder(
    // The forwarder posts packed batches (an older relay's spool: JSON); the fake worker reads both.
    (batch) =>
      worker.post(
        isPackedBatch(batch) ? unpackBatch(batch) : (JSON.parse(batch.toString("utf8")) as SessionRecords[]),
      ),
    spool,
    { ...OPTIONS, ...options },
    metrics,
    createLog("info", (line) => logs.push(line)),
    (flights) => refused.push(...flights),
  );
  f.start();
  return { forwarder: f, metrics, spool, logs, refused };
}

const spoolDirs: string[] = [];
const tempDir = () => {
  spoolDirs.push(mkdtempSync(path.join(os.tmpdir(), "relay-spool-")));
  return spoolDirs.at(-1)!;
};
afterAll(() => {
  for (const dir of spoolDirs) rmSync(dir, { recursive: true, force: true });
});
const until = async (condition: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe("Forwarder", () => {
  it("posts full batches at once and a partial batch after the delay, packed", async () => {
    const bodies: Buffer[] = [];
    const metrics = relayMetrics();
    const f = new Forwarder(
      async (body) => {
        bodies.push(body);
        return { stored: 3, duplicates: 0, refused: [] };
      },
      new Spool(tempDir(), 1024 * 1024),
      { ...OPTIONS, batchSize: 3 },
      metrics,
      createLog("error"),
    );
    f.start();
    const rows = [
      [1, 0, "position", 1_700_000_000_000, 1_700_000_000_005, 47.3769251, -8.5, 0.1, -0, 1e-7],
      [2, 1, "barometer", 0, 1_700_000_000_006, 1013.25],
      [3, 0, "speed", 5, 1_700_000_000_007, 1.5e21, -3, 0],
    ] as const;
    f.enqueue("flight|a", "session|a", [...rows[0]], Buffer.from("AAAA+w==", "base64"));
    f.enqueue('flight|"b"', "session|b", [...rows[1]], Buffer.from('odd "id"\\'));
    // Bytes `start` to `end` name a datagram (the intake passes its last ciphertext block).
    f.enqueue("flight|a", "session|a", [...rows[2]], Buffer.from("xx\x04\x10\x41", "latin1"), 2, 5);
    await until(() => bodies.length === 1);
    const expected: SessionRecords[] = [
      {
        flight_id: "flight|a",
        session_id: "session|a",
        records: [[...rows[0]], [...rows[2]]],
        datagrams: ["AAAA+w==", Buffer.from([4, 16, 65]).toString("base64")],
      },
      {
        flight_id: 'flight|"b"',
        session_id: "session|b",
        records: [[...rows[1]]],
        datagrams: [Buffer.from('odd "id"\\').toString("base64")],
      },
    ];
    // Every value exactly as it was, -0 included: eight bytes each, no decimal text.
    const unpacked = unpackBatch(bodies[0]!);
    expect(unpacked).toEqual(expected);
    expect(Object.is(unpacked[0]!.records[0]![8], -0)).toBe(true);
    expect(metrics.recordsForwarded.value()).toBe(3);
  });

  it("spills to the spool beyond its bound in bytes", async () => {
    const worker = fakeWorker();
    const { forwarder: f, spool } = forwarder(worker, tempDir(), {
      maxQueuedRecords: 0,
      maxQueuedBytes: 2000,
    });
    worker.up = false;
    for (let i = 1; i <= 300; i++) enqueue(f, i);
    await until(() => spool.batches > 0 && f.queuedRecords + spool.records === 300);
    // A barometer row and its datagram id take about 60 bytes: 2,000 bytes hold a few batches of 10.
    expect(f.queuedBytes).toBeLessThanOrEqual(2000);
    expect(f.queuedRecords).toBeLessThan(60);
    worker.up = true;
    await until(() => worker.stored.size === 300);
    await until(() => spool.batches === 0 && f.queuedBytes === 0);
  });

  it("delivers batches spooled by older relays, without datagram ids", async () => {
    const worker = fakeWorker();
    const dir = tempDir();
    const old: SessionRecords[] = [
      {
        flight_id: "flight|old",
        session_id: "session|old",
        records: [[7, 0, "barometer", 7, Date.now(), 990]],
      },
    ];
    writeFileSync(path.join(dir, "000001700000000-000000-1.json"), JSON.stringify(old));
    const { metrics } = forwarder(worker, dir);
    await until(() => worker.stored.has("session|old/7/0"));
    await until(() => readdirSync(dir).length === 0);
    expect(metrics.recordsForwarded.value()).toBe(1);
  });

  it("reports the flights whose records the worker refused, so their keys are looked up again", async () => {
    const worker = fakeWorker();
    const post = worker.post;
    worker.post = async (sessions) => ({
      ...(await post(sessions)),
      refused: [{ session_id: "session|closed", reason: "session_closed", records: 1 }],
    });
    const { forwarder: f, metrics, refused } = forwarder(worker, tempDir());
    enqueue(f, 1, "flight|closed", "session|closed");
    enqueue(f, 1, "flight|open", "session|open");
    await until(() => refused.length > 0);
    expect(refused).toEqual(["flight|closed"]);
    expect(metrics.recordsDropped.value({ reason: "session_closed" })).toBe(1);
  });
});
