import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { IngestResult, RelaySession, SessionRecords } from "../proto/ingest";
import { SessionKey } from "./crypto";

/** The worker's internal relay API (/internal/v1), authenticated by the relay credential. */

export interface Session {
  id: string;
  key: SessionKey;
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
const SESSIONS_OPEN = Buffer.from('{"sessions":');
const SESSIONS_CLOSE = Buffer.from("}");

/**
 * node:http(s) with one keep-alive agent rather than fetch: a post costs the relay a fraction of
 * fetch's overhead, and the relay posts many times a second.
 */
export class WorkerClient {
  private readonly request: typeof httpRequest;
  private readonly agent: HttpAgent;
  private readonly authorization: string;

  constructor(
    private readonly baseUrl: string,
    secret: string,
  ) {
    const secure = new URL(baseUrl).protocol === "https:";
    this.request = secure ? httpsRequest : httpRequest;
    this.agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.authorization = `Bearer ${secret}`;
  }

  /** The flight's open session, or null when it has none (or does not exist). */
  async fetchSession(flightId: string): Promise<Session | null> {
    const path = `/internal/v1/flights/${encodeURIComponent(flightId)}/session`;
    const res = await this.call("GET", path, undefined, [404]);
    if (res.status === 404) return null;
    const { data } = JSON.parse(res.body) as { data: RelaySession };
    return { id: data.session_id, key: new SessionKey(Buffer.from(data.key, "base64")) };
  }

  async postRecords(sessions: SessionRecords[]): Promise<IngestResult> {
    return this.postRecordsText(JSON.stringify(sessions));
  }

  /** The same with the sessions already as JSON text (the forwarder builds batches as UTF-8 bytes). */
  async postRecordsText(sessions: string | Uint8Array): Promise<IngestResult> {
    const body =
      typeof sessions === "string"
        ? `{"sessions":${sessions}}`
        : Buffer.concat([SESSIONS_OPEN, sessions, SESSIONS_CLOSE]);
    const res = await this.call("POST", "/internal/v1/telemetry", body);
    return (JSON.parse(res.body) as { data: IngestResult }).data;
  }

  private async call(
    method: string,
    path: string,
    body?: string | Uint8Array,
    expected: number[] = [],
  ): Promise<{ status: number; body: string }> {
    let res: { status: number; body: string };
    try {
      res = await this.send(method, path, body);
    } catch (err) {
      throw new WorkerError(`worker unreachable: ${(err as Error).message}`, true);
    }
    if ((res.status >= 200 && res.status < 300) || expected.includes(res.status)) return res;
    const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
    throw new WorkerError(`worker answered ${res.status}: ${res.body.slice(0, 300)}`, retryable);
  }

  private send(
    method: string,
    path: string,
    body?: string | Uint8Array,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = this.request(
        new URL(`${this.baseUrl}${path}`),
        {
          method,
          agent: this.agent,
          timeout: TIMEOUT_MS,
          headers: {
            Authorization: this.authorization,
            // Identity: the answers are small, and gunzipping each costs more than it saves.
            "Accept-Encoding": "identity",
            ...(body === undefined
              ? {}
              : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on("error", reject);
      req.end(body);
    });
  }
}
