import type { OutgoingRecord } from "../../proto/records";

/** A position record with every field set (Zürich unless given), for tests and benchmarks. */
export function position(timestamp: number, latitude = 47.3769251, longitude = 8.541694): OutgoingRecord {
  return {
    type: "position",
    fields: {
      timestamp,
      latitude,
      longitude,
      altitude_agl: 42.5,
      altitude_msl: 450.25,
      horizontal_accuracy: 1.5,
    },
  };
}
