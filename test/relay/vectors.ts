import { readFileSync } from "node:fs";

export interface VectorCase {
  name: string;
  valid: boolean;
  key: string;
  flight_id: string;
  serial?: number;
  datagram_hex: string;
  messages: ({ type: string; timestamp: number } & Record<string, unknown>)[];
  why?: string;
}

/** The independent vectors of test/fixtures/telemetry-vectors (see its README). */
export const vectors: VectorCase[] = JSON.parse(
  readFileSync(new URL("../fixtures/telemetry-vectors/vectors.json", import.meta.url), "utf8"),
).cases;
