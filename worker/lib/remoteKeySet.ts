import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";

/**
 * A provider's published keys (a JWK Set URL), fetched by one request at a time per isolate. jose's
 * createRemoteJWKSet shares a fetch in flight everywhere but on Workers, where a promise of another
 * request's I/O must not be awaited: there every request with an unknown kid fetched (100 at once
 * made 102 fetches). Here the requests that find a fetch in flight wait for its result on their own
 * timers and read the keys it stored (plain data). A fetch starts at most once per `cooldownMs`
 * (unless the keys are older than `maxAgeMs`), so a flood of made-up kids costs one fetch per
 * cooldown and isolate; the isolates of a location share a fetch's answer for `cooldownMs` through
 * the Cache API, so across isolates too a new kid is looked for about once per cooldown.
 */

export interface RemoteKeySetOptions {
  /** The least time between two fetches for an unknown kid. */
  cooldownMs: number;
  /** Keys are fetched again after this long even when every kid is known. */
  maxAgeMs: number;
  timeoutMs: number;
  /** Injected in tests: counts the fetches. */
  fetcher?: typeof fetch;
  /** The shared cache across isolates; default `caches.default` where it exists. */
  sharedCache?: Cache | null;
}

const POLL_MS = 20;

export class RemoteKeySet {
  private keys: JWTVerifyGetKey | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private startedAt = Number.NEGATIVE_INFINITY;
  private inFlight = false;
  private lastError: unknown;
  /** Fetches this isolate started (tests and logs). */
  fetches = 0;

  constructor(
    private readonly url: URL,
    private readonly options: RemoteKeySetOptions,
  ) {}

  /** A key getter for jose's jwtVerify. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.keys || Date.now() - this.fetchedAt >= this.options.maxAgeMs) await this.refresh();
    try {
      return await this.local()(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || Date.now() - this.startedAt < this.options.cooldownMs)
        throw err;
      await this.refresh();
      return this.local()(header, token);
    }
  };

  private local(): JWTVerifyGetKey {
    if (!this.keys) throw this.lastError ?? new errors.JWKSInvalid("the JWK Set could not be read");
    return this.keys;
  }

  /** Fetches the set, or waits for the fetch in flight; a second fetch within the cooldown is not made. */
  private async refresh(): Promise<void> {
    if (this.inFlight) return this.waitForFetch();
    // Within the cooldown the last answer stands: the keys it gave, or its failure.
    if (Date.now() - this.startedAt < this.options.cooldownMs) return;
    this.inFlight = true;
    this.startedAt = Date.now();
    try {
      this.keys = createLocalJWKSet(await this.read());
      this.fetchedAt = Date.now();
      this.lastError = undefined;
    } catch (err) {
      this.lastError = err;
      throw err;
    } finally {
      this.inFlight = false;
    }
  }

  private async waitForFetch(): Promise<void> {
    const deadline = Date.now() + this.options.timeoutMs + 1000;
    while (this.inFlight && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
    if (this.inFlight) throw new errors.JWKSTimeout();
  }

  /** The set from the location's cache when another isolate fetched it within the cooldown, else the URL. */
  private async read(): Promise<JSONWebKeySet> {
    const cache = this.options.sharedCache === undefined ? defaultCache() : this.options.sharedCache;
    const cacheKey = `https://jwks-cache.windsock.internal/${encodeURIComponent(this.url.href)}`;
    const cached = await cache?.match(cacheKey).catch(() => undefined);
    if (cached) return parseSet(await cached.text());
    this.fetches++;
    const fetcher = this.options.fetcher ?? fetch;
    const response = await fetcher(this.url.href, {
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(this.options.timeoutMs),
    }).catch((err: unknown) => {
      throw err instanceof Error && err.name === "TimeoutError" ? new errors.JWKSTimeout() : err;
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new errors.JOSEError(`the JWK Set answered ${response.status}`);
    }
    const text = await response.text();
    const set = parseSet(text);
    const seconds = Math.max(1, Math.floor(this.options.cooldownMs / 1000));
    await cache
      ?.put(
        cacheKey,
        new Response(text, {
          headers: { "content-type": "application/json", "cache-control": `max-age=${seconds}` },
        }),
      )
      .catch(() => {});
    return set;
  }
}

function parseSet(text: string): JSONWebKeySet {
  let set: unknown;
  try {
    set = JSON.parse(text);
  } catch {
    throw new errors.JWKSInvalid("the JWK Set is not JSON");
  }
  if (!set || typeof set !== "object" || !Array.isArray((set as { keys?: unknown }).keys))
    throw new errors.JWKSInvalid("the JWK Set has no keys");
  return set as JSONWebKeySet;
}

function defaultCache(): Cache | null {
  return typeof caches === "undefined" ? null : ((caches as unknown as { default?: Cache }).default ?? null);
}
