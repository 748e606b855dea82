import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Test and bench instrument, never part of production (worker/dev/index.ts installs it): wraps the
 * storage bindings (D1, each Durable Object stub call, R2) to count a request's sequential round
 * trips and, when asked, to delay each call as a far-away primary or a near replica would.
 */

/** Simulated round trip of each kind of storage call, in ms (0: none). */
export interface StorageDelays {
  /** A D1 call that reaches the primary: any write, and every read outside a session. */
  primaryMs: number;
  /** A D1 read inside a session that may go to a replica (`withSession` other than first-primary). */
  replicaMs: number;
  /** A Durable Object stub call. */
  durableObjectMs: number;
  /** An R2 call. */
  r2Ms: number;
}

export const NO_DELAYS: StorageDelays = { primaryMs: 0, replicaMs: 0, durableObjectMs: 0, r2Ms: 0 };

export type CallKind = "primary" | "replica" | "durableObject" | "r2";

/**
 * One request's storage calls. A call's depth is one more than the deepest call that had finished
 * when it started: calls issued together (Promise.all, one batch) share a depth, a call that waited
 * for another's answer goes one deeper. The deepest depth is the request's sequential round trips.
 */
export class RoundTrips {
  private finishedDepth = 0;
  readonly calls: Record<CallKind, number> = { primary: 0, replica: 0, durableObject: 0, r2: 0 };
  /** Each call as `depth kind what`, in the order they started: where a route's trips go. */
  readonly log: string[] = [];

  constructor(readonly delays: StorageDelays = NO_DELAYS) {}

  get sequential(): number {
    return this.finishedDepth;
  }

  async track<T>(kind: CallKind, what: string, call: () => Promise<T>): Promise<T> {
    const depth = this.finishedDepth + 1;
    this.calls[kind]++;
    // The start of each call's SQL is enough to tell them apart, and keeps the header short.
    this.log.push(`${depth} ${kind} ${what.slice(0, 120)}`);
    try {
      const ms = this.delayOf(kind);
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      return await call();
    } finally {
      this.finishedDepth = Math.max(this.finishedDepth, depth);
    }
  }

  private delayOf(kind: CallKind): number {
    const { primaryMs, replicaMs, durableObjectMs, r2Ms } = this.delays;
    return { primary: primaryMs, replica: replicaMs, durableObject: durableObjectMs, r2: r2Ms }[kind];
  }
}

const current = new AsyncLocalStorage<RoundTrips>();

/** Runs `work` with its storage calls counted (and delayed) in `trips`. */
export function withRoundTrips<T>(trips: RoundTrips, work: () => T): T {
  return current.run(trips, work);
}

function tracked<T>(kind: CallKind, what: string, call: () => Promise<T>): Promise<T> {
  const trips = current.getStore();
  return trips ? trips.track(kind, what, call) : call();
}

/** Statements that change data go to the primary whatever the session says. */
const WRITE = /^\s*(insert|update|delete|replace|create|drop|alter)\b|\breturning\b/i;
const isWrite = (sql: string) =>
  WRITE.test(sql) || (/^\s*with\b/i.test(sql) && /\b(insert|update|delete)\b/i.test(sql));

/**
 * Where a D1 connection's reads go: the primary, or a replica. A session reads at a replica from
 * the start; a first-primary one once its first answer came back (with the bookmark a replica then
 * serves), as Cloudflare documents. The replica is taken to have caught up with that bookmark.
 */
interface Routing {
  readsAtReplica: boolean;
  /** Called when an answer comes back. */
  answered(): void;
}

const atPrimary = (): Routing => ({ readsAtReplica: false, answered() {} });

function sessionRouting(constraintOrBookmark: string | undefined): Routing {
  const routing: Routing = {
    // withSession() without an argument is first-primary.
    readsAtReplica: constraintOrBookmark !== undefined && constraintOrBookmark !== "first-primary",
    answered() {
      routing.readsAtReplica = true;
    },
  };
  return routing;
}

/** Runs a D1 call where its SQL and the connection's routing send it. */
function routed<T>(routing: Routing, write: boolean, what: string, call: () => Promise<T>): Promise<T> {
  const kind: CallKind = !write && routing.readsAtReplica ? "replica" : "primary";
  return tracked(kind, what, async () => {
    const answer = await call();
    routing.answered();
    return answer;
  });
}

const realStatements = new WeakMap<object, D1PreparedStatement>();

function statementOf(real: D1PreparedStatement, sql: string, routing: Routing): D1PreparedStatement {
  const write = isWrite(sql);
  const wrapped: D1PreparedStatement = {
    bind: (...values: unknown[]) => statementOf(real.bind(...values), sql, routing),
    first: ((column?: string) =>
      routed(routing, write, sql, () =>
        column === undefined ? real.first() : real.first(column),
      )) as D1PreparedStatement["first"],
    run: (() => routed(routing, write, sql, () => real.run())) as D1PreparedStatement["run"],
    all: (() => routed(routing, write, sql, () => real.all())) as D1PreparedStatement["all"],
    raw: ((options?: { columnNames?: boolean }) =>
      routed(routing, write, sql, () =>
        real.raw(options as { columnNames: true }),
      )) as D1PreparedStatement["raw"],
  };
  realStatements.set(wrapped, real);
  sqlOf.set(wrapped, sql);
  return wrapped;
}

const sqlOf = new WeakMap<object, string>();

function batchOf(
  real: (statements: D1PreparedStatement[]) => Promise<D1Result<unknown>[]>,
  routing: Routing,
) {
  return <T>(statements: D1PreparedStatement[]) => {
    const write = statements.some((s) => isWrite(sqlOf.get(s) ?? ""));
    const what = `batch: ${statements.map((s) => sqlOf.get(s)?.slice(0, 60)).join(" | ")}`;
    return routed(routing, write, what, () =>
      real(statements.map((s) => realStatements.get(s) ?? s)),
    ) as Promise<D1Result<T>[]>;
  };
}

function sessionOf(real: D1DatabaseSession, routing: Routing): D1DatabaseSession {
  return {
    prepare: (sql: string) => statementOf(real.prepare(sql), sql, routing),
    batch: batchOf((s) => real.batch(s), routing),
    getBookmark: () => real.getBookmark(),
  };
}

function tracedD1(real: D1Database): D1Database {
  return {
    prepare: (sql: string) => statementOf(real.prepare(sql), sql, atPrimary()),
    batch: batchOf((s) => real.batch(s), atPrimary()),
    exec: (sql: string) => tracked("primary", sql, () => real.exec(sql)),
    dump: () => tracked("primary", "dump", () => real.dump()),
    withSession: (constraintOrBookmark?: string) =>
      sessionOf(real.withSession(constraintOrBookmark), sessionRouting(constraintOrBookmark)),
  } as D1Database;
}

/** A stub whose every method call (and fetch) is one round trip to the object. */
function tracedStub<S extends object>(real: S): S {
  return new Proxy(real, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function" || property === "then") return value;
      // Reflect.apply: a stub's method is itself a stub, whose `apply` would be sent as a call.
      return (...args: unknown[]) =>
        tracked("durableObject", String(property), async () => Reflect.apply(value, target, args));
    },
  });
}

function tracedNamespace<N extends DurableObjectNamespace>(real: N): N {
  return new Proxy(real, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      if (property === "get" || property === "getByName")
        return (...args: unknown[]) => tracedStub(Reflect.apply(value, target, args));
      return value.bind(target);
    },
  });
}

function tracedBucket(real: R2Bucket): R2Bucket {
  return new Proxy(real, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        tracked("r2", String(property), async () => Reflect.apply(value, target, args));
    },
  });
}

/** The kind of storage a binding is, told by its shape: bindings added later are traced too. */
function storageKind(binding: unknown): "d1" | "objects" | "r2" | undefined {
  if (typeof binding !== "object" || binding === null) return undefined;
  const has = (method: string) => typeof (binding as Record<string, unknown>)[method] === "function";
  if (has("withSession") && has("prepare") && has("batch")) return "d1";
  if (has("idFromName") && has("get")) return "objects";
  if (has("createMultipartUpload") && has("head")) return "r2";
  return undefined;
}

/**
 * Wrapped bindings, made once per binding and isolate: the worker keeps per-binding caches (the
 * drizzle database, prepared reads) that would miss with a new wrapper per request.
 */
const wrapped = new WeakMap<object, unknown>();

function once<T extends object>(real: T, wrap: (real: T) => T): T {
  let made = wrapped.get(real) as T | undefined;
  if (made === undefined) {
    made = wrap(real);
    wrapped.set(real, made);
  }
  return made;
}

/** `env` with its storage bindings counted (and delayed) through the request's RoundTrips. */
export function tracedEnv<E extends object>(env: E): E {
  const traced: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const [name, binding] of Object.entries(env as Record<string, unknown>)) {
    const kind = storageKind(binding);
    if (kind === "d1") traced[name] = once(binding as D1Database, tracedD1);
    else if (kind === "objects") traced[name] = once(binding as DurableObjectNamespace, tracedNamespace);
    else if (kind === "r2") traced[name] = once(binding as R2Bucket, tracedBucket);
  }
  return traced as E;
}
