import { describe, expect, it } from "vitest";
import {
  Downsampler,
  POSITION_FIELDS,
  positionRow,
  sampleInterval,
} from "../../worker/domain/telemetryArchive";
import { ApiError } from "../../worker/lib/errors";
import {
  archivedPositions,
  MAX_SAMPLES,
  MAX_SCANNED,
  type RecordReader,
} from "../../worker/services/telemetryArchive";
import type { StoredRecord } from "../../worker/telemetry/flightTelemetry";

describe("sampleInterval", () => {
  it("reads the Swift SDK's SampleRate strings", () => {
    expect(sampleInterval("250ms")).toBe(250);
    expect(sampleInterval("1s")).toBe(1000);
    expect(sampleInterval("5m")).toBe(300_000);
    expect(sampleInterval("2")).toBe(2000);
    expect(sampleInterval("0.5s")).toBe(500);
  });

  it("refuses anything else, and intervals under 1 ms or over a day", () => {
    for (const bad of ["", "fast", "-1s", "1h", "0ms", "0.5ms", "1441m", "1 s", "1e3ms"])
      expect(sampleInterval(bad), bad).toBeUndefined();
    expect(sampleInterval("1440m")).toBe(86_400_000);
  });
});

describe("Downsampler", () => {
  it("keeps the first record of each interval, intervals aligned to the epoch", () => {
    const sampler = new Downsampler(1000);
    const kept = [999, 1000, 1001, 1999, 2000, 2000, 3500, 9000].filter((t) => sampler.keeps(t));
    expect(kept).toEqual([999, 1000, 2000, 3500, 9000]);
  });
});

describe("positionRow", () => {
  it("puts a Position's fields in the table's column order", () => {
    const row = positionRow({
      timestamp: Date.UTC(2030, 0, 1),
      fields: { latitude: 1.5, longitude: 2.5, altitude_agl: 10, altitude_msl: 110, horizontal_accuracy: 3 },
    });
    expect(Object.fromEntries(POSITION_FIELDS.map((f, i) => [f, row[i]]))).toEqual({
      timestamp: "2030-01-01T00:00:00.000Z",
      latitude_degrees: 1.5,
      longitude_degrees: 2.5,
      altitude_meters: 110,
      altitude_agl_meters: 10,
      horizontal_accuracy_meters: 3,
    });
  });
});

/** A store of `count` positions one every `stepMs`, read in pages as the Durable Object reads them. */
function fakeStore(count: number, stepMs: number) {
  const reads: number[] = [];
  const read: RecordReader = async (query) => {
    reads.push(query.limit);
    const from = query.after ? query.after.id + 1 : 0;
    const records: StoredRecord[] = [];
    for (let id = from; id < count && records.length < query.limit; id++) {
      const timestamp = id * stepMs;
      if (timestamp >= query.since)
        records.push({ id, serial: id, type: "position", timestamp, receivedAt: timestamp, fields: {} });
    }
    const last = records.at(-1);
    return { records, more: last !== undefined && last.id < count - 1 };
  };
  return { read, reads };
}

describe("archivedPositions", () => {
  it("pages through the store and stops at the end of the window", async () => {
    const store = fakeStore(25_000, 100);
    const rows = await archivedPositions(store.read, { start: 0, end: 1_500_000, intervalMs: 1000 });
    expect(rows).toHaveLength(1501);
    // The second page already reaches past the end: no third read.
    expect(store.reads).toHaveLength(2);
    const all = fakeStore(25_000, 100);
    expect(
      await archivedPositions(all.read, { start: 0, end: Number.MAX_SAFE_INTEGER, intervalMs: 1000 }),
    ).toHaveLength(2500);
    expect(all.reads).toHaveLength(3);
  });

  it("refuses more samples than one answer holds, naming rate", async () => {
    const store = fakeStore(MAX_SAMPLES + 1, 10);
    const refused = archivedPositions(store.read, { start: 0, end: Number.MAX_SAFE_INTEGER, intervalMs: 10 });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 400, errors: [{ name: "rate" }] });
    const coarser = fakeStore(MAX_SAMPLES + 1, 10);
    expect(
      await archivedPositions(coarser.read, { start: 0, end: Number.MAX_SAFE_INTEGER, intervalMs: 20 }),
    ).toHaveLength(MAX_SAMPLES / 2 + 1);
  });

  it("refuses to scan more records than its limit, naming end", async () => {
    const store = fakeStore(MAX_SCANNED + 1, 1);
    await expect(
      archivedPositions(store.read, { start: 0, end: Number.MAX_SAFE_INTEGER, intervalMs: 60_000 }),
    ).rejects.toMatchObject({ status: 400, errors: [{ name: "end" }] });
  });
});
