import { createHash } from "node:crypto";
import type { TrafficClient } from "../../proto/traffic";

/**
 * Who may monitor which flight: the worker decides (POST /internal/v1/traffic/clients), the broker
 * trusts an answer for `ttlMs`. Concurrent CONNECTs with the same credentials share one question,
 * and at most `maxPending` questions run at once: a CONNECT flood costs the worker that many calls
 * at a time, and what exceeds ten times that is refused as "server unavailable" without asking.
 */

export type Verdict =
  | { allowed: true; client: TrafficClient }
  /** The worker refused (401, 403, 404): CONNACK 5, "not authorized". */
  | { allowed: false; reason: string }
  /** The worker could not answer: CONNACK 3, "server unavailable"; a connected client is kept. */
  | { unavailable: string };

export type AskWorker = (flightId: string, token: string) => Promise<Verdict>;

interface Entry {
  verdict: Verdict;
  at: number;
}

export class Admission {
  private readonly answers = new Map<string, Entry>();
  private readonly asking = new Map<string, Promise<Verdict>>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;

  constructor(
    private readonly ask: AskWorker,
    private readonly options: { ttlMs: number; maxPending: number; now: () => number; maxEntries?: number },
  ) {}

  /** The verdict for these credentials: cached while fresh, else asked (once for concurrent callers). */
  check(flightId: string, token: string): Promise<Verdict> {
    const key = keyOf(flightId, token);
    const cached = this.answers.get(key);
    if (cached && this.options.now() - cached.at < this.options.ttlMs) return Promise.resolve(cached.verdict);
    const asking = this.asking.get(key);
    if (asking) return asking;
    if (this.running >= this.options.maxPending && this.waiting.length >= this.options.maxPending * 10)
      return Promise.resolve({ unavailable: "too many connections are being checked; try again" });
    const promise = this.slot()
      .then(() => this.ask(flightId, token))
      .catch((err: unknown): Verdict => ({ unavailable: String((err as Error).message ?? err) }))
      .then((verdict) => {
        // A failed question is not remembered: the next CONNECT asks again.
        if (!("unavailable" in verdict)) this.remember(key, verdict);
        return verdict;
      })
      .finally(() => {
        this.asking.delete(key);
        this.running--;
        this.waiting.shift()?.();
      });
    this.asking.set(key, promise);
    return promise;
  }

  get pending(): number {
    return this.running + this.waiting.length;
  }

  private slot(): Promise<void> {
    if (this.running < this.options.maxPending) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.running++;
        resolve();
      }),
    );
  }

  private remember(key: string, verdict: Verdict): void {
    this.answers.delete(key);
    if (this.answers.size >= (this.options.maxEntries ?? 50_000))
      this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, { verdict, at: this.options.now() });
  }
}

/** Tokens are secrets: the cache keeps their hash. */
const keyOf = (flightId: string, token: string) =>
  `${flightId}\u0000${createHash("sha256").update(token).digest("base64url")}`;

/** Asks the worker's internal API, authenticated by the relay credential. */
export function workerAsker(workerUrl: string, secret: string, timeoutMs = 10_000): AskWorker {
  return async (flightId, token) => {
    const res = await fetch(`${workerUrl}/internal/v1/traffic/clients`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${secret}`,
        // A few hundred bytes: inflating them cost the broker more than its traffic (the bench's profile).
        "accept-encoding": "identity",
      },
      body: JSON.stringify({ flight_id: flightId, token }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (res.status === 200)
      return { allowed: true, client: (JSON.parse(text) as { data: TrafficClient }).data };
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      let reason = `worker answered ${res.status}`;
      try {
        const body = JSON.parse(text) as { message?: string; data?: { message?: string } };
        reason = body.data?.message ?? body.message ?? reason;
      } catch {}
      return { allowed: false, reason };
    }
    return { unavailable: `worker answered ${res.status}` };
  };
}
