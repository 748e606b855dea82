import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { IngestResult, RelaySession } from "../proto/ingest";
import { isPackedBatch, PACKED_BATCH_TYPE } from "../proto/packedBatch";
import { SessionKey } from "./crypto";

/** The worker's internal relay API (/internal/v1), authenticated by the relay credential. */

export interface Session {
  id: string;
  key: SessionKey;
  /** When the session was opened (start-comm), ms: records dated well before it are implausible. */
  openedAt: number;
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
    return {
      id: data.session_id,
      key: new SessionKey(Buffer.from(data.key, "base64")),
      // A worker older than opened_at: only the window's end applies.
      openedAt: data.opened_at ?? Number.NEGATIVE_INFINITY,
    };
  }

  /**
   * Posts a batch as the forwarder holds it: packed (proto/packedBatch.ts), or the JSON text of a
   * SessionRecords[] (an older relay's spool), sent as the JSON ingest request.
   */
  async postBatch(batch: Buffer): Promise<IngestResult> {
    const packed = isPackedBatch(batch);
    const body = packed ? batch : Buffer.concat([SESSIONS_OPEN, batch, SESSIONS_CLOSE]);
    const res = await this.call(
      "POST",
      "/internal/v1/telemetry",
      body,
      [],
      packed ? PACKED_BATCH_TYPE : undefined,
    );
    return (JSON.parse(res.body) as { data: IngestResult }).data;
  }

  private async call(
    method: string,
    path: string,
    body?: Uint8Array,
    expected: number[] = [],
    contentType = "application/json",
  ): Promise<{ status: number; body: string }> {
    let res: { status: number; body: string };
    try {
      res = await this.send(method, path, body, contentType);
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
    body: Uint8Array | undefined,
    contentType: string,
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
            ...(body === undefined ? {} : { "Content-Type": contentType, "Content-Length": body.byteLength }),
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
