import { createSecretKey, type KeyObject } from "node:crypto";

/** The worker's internal relay API (/internal/v1), authenticated by the relay credential. */

export interface Session {
  id: string;
  key: KeyObject;
}

/** A record as the worker's ingest takes it. */
export interface ForwardedRecord {
  flight_id: string;
  session_id: string;
  serial: number;
  index: number;
  type: string;
  timestamp: number;
  received_at: number;
  fields: Record<string, number>;
}

export interface IngestResult {
  stored: number;
  duplicates: number;
  refused: { session_id: string; reason: string; records: number }[];
}

/** A failed call; `retryable` when trying again later may succeed (network, 5xx, 429). */
export class WorkerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 10_000;

export class WorkerClient {
  private readonly headers: Record<string, string>;

  constructor(
    private readonly baseUrl: string,
    secret: string,
  ) {
    this.headers = { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" };
  }

  /** The flight's open session, or null when it has none (or does not exist). */
  async fetchSession(flightId: string): Promise<Session | null> {
    const path = `/internal/v1/flights/${encodeURIComponent(flightId)}/session`;
    const res = await this.call(path, { method: "GET" }, [404]);
    if (res.status === 404) return null;
    const body = (await res.json()) as { data: { session_id: string; key: string } };
    return { id: body.data.session_id, key: createSecretKey(Buffer.from(body.data.key, "base64")) };
  }

  async postRecords(records: ForwardedRecord[]): Promise<IngestResult> {
    const res = await this.call("/internal/v1/telemetry", {
      method: "POST",
      body: JSON.stringify({ records }),
    });
    return ((await res.json()) as { data: IngestResult }).data;
  }

  private async call(path: string, init: RequestInit, expected: number[] = []): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        ...init,
        headers: this.headers,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new WorkerError(`worker unreachable: ${(err as Error).cause ?? (err as Error).message}`, true);
    }
    if (res.ok || expected.includes(res.status)) return res;
    const text = await res.text().catch(() => "");
    const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
    throw new WorkerError(`worker answered ${res.status}: ${text.slice(0, 300)}`, retryable);
  }
}
