import { describe, expect, it } from "vitest";
import { intakeHarness, settle } from "./harness";
import { vectors } from "./vectors";

/** What each invalid vector is dropped for: the datagram's reason, or a record's. */
const DROPS: Record<string, { datagram?: string[]; record?: string }> = {
  "truncated-header": { datagram: ["truncated"] },
  "zero-length-flight-id": { datagram: ["bad_flight_id_length"] },
  "flight-id-longer-than-datagram": { datagram: ["bad_flight_id_length"] },
  "unknown-encryption-type": { datagram: ["unsupported_encryption"] },
  "no-ciphertext": { datagram: ["bad_ciphertext_length"] },
  "ciphertext-not-block-multiple": { datagram: ["bad_ciphertext_length"] },
  "wrong-key": { datagram: ["decrypt_failed", "bad_payload_framing"] },
  "record-length-past-payload": { datagram: ["bad_payload_framing"] },
  "latitude-out-of-range": { record: "out_of_range" },
  "longitude-out-of-range": { record: "out_of_range" },
  "latitude-not-a-number": { record: "out_of_range" },
  "malformed-protobuf": { record: "malformed" },
};

describe("telemetry vectors through the relay's intake", () => {
  it("knows the drop reason of every invalid vector", () => {
    const invalid = vectors.filter((v) => !v.valid).map((v) => v.name);
    expect(invalid.sort()).toEqual(Object.keys(DROPS).sort());
  });

  for (const vector of vectors) {
    it(`${vector.valid ? "stores" : "drops"} ${vector.name}`, async () => {
      // The vectors test the wire format, whose flight ids are any 1..255 bytes; the relay's own check
      // of the worker's id shape before a look-up is tested in hardening.test.ts.
      const relay = intakeHarness({ flightIds: /^/ });
      relay.sessions.set(vector.flight_id, { id: "session|vector", key: Buffer.from(vector.key, "base64") });
      relay.intake.handle(Buffer.from(vector.datagram_hex, "hex"), "198.51.100.7");
      await settle();

      const stored = relay.forwarded.map(({ type, timestamp, fields }) => ({ type, timestamp, ...fields }));
      expect(stored).toEqual(vector.messages);
      for (const record of relay.forwarded) {
        expect(record).toMatchObject({
          flight_id: vector.flight_id,
          session_id: "session|vector",
          serial: vector.serial,
        });
      }
      expect(relay.forwarded.map((r) => r.index)).toEqual(
        vector.name === "unknown-message-type-skipped" ? [0] : vector.messages.map((_, i) => i),
      );

      const datagramDrops = relay.metrics.datagramsDropped.render().filter((line) => !line.startsWith("#"));
      const drop = DROPS[vector.name];
      if (drop?.datagram) {
        expect(drop.datagram.some((reason) => relay.dropped(reason) === 1)).toBe(true);
        expect(relay.metrics.datagramsAccepted.value()).toBe(0);
      } else {
        expect(datagramDrops).toEqual(["windsock_relay_datagrams_dropped_total 0"]);
        expect(relay.metrics.datagramsAccepted.value()).toBe(1);
      }
      if (drop?.record) expect(relay.droppedRecords(drop.record)).toBe(1);
      if (vector.name === "unknown-message-type-skipped")
        expect(relay.droppedRecords("unknown_type")).toBe(1);
      expect(relay.dropped("internal_error")).toBe(0);
    });
  }
});
