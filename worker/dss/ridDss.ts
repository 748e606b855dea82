import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../env";
import { CellIndex, IDS_IN_CELLS, scheduleExpiry, WriteClock } from "./cellIndex";
import { AreaTooLarge } from "./cells";
import { ENDED_KEPT_MS, type Extents, extentsOf, InvalidExtents, type Volume4DInput } from "./extents";
import { fail, type Outcome, type Refusal, type RfcTime, rfcTime as time } from "./outcome";

export type { DssStatus, Outcome, RfcTime } from "./outcome";

/**
 * The ASTM F3411-22a Discovery and Synchronization Service's data: Identification Service Areas
 * and subscriptions, indexed by level-13 S2 cells, in ONE SQLite-backed Durable Object. Every write
 * reads, checks and writes inside one synchronous transaction with no outbound call, so writes are
 * serialized (the object's input gate) and answered only once durable. Expired entities are removed
 * by the object's alarm; queries skip them before that.
 */

/** The one DSS object; its name is fixed so every isolate and location reaches the same one. */
export const ridDssOf = (env: Bindings) => env.RID_DSS.get(env.RID_DSS.idFromName("f3411-22a"));

/** Hex, as nextVersion gives: anything else is a malformed request (400), not a stale version (409). */
const VERSION = /^[0-9a-f]{1,16}$/;
/** InterUSS's DSS allows one USS at most this many subscriptions over any one cell. */
export const MAX_SUBSCRIPTIONS_PER_CELL = 10;

export interface Isa {
  id: string;
  owner: string;
  uss_base_url: string;
  time_start: RfcTime;
  time_end: RfcTime;
  version: string;
}
export interface Subscription extends Isa {
  notification_index: number;
}
export interface SubscriberToNotify {
  url: string;
  subscriptions: { subscription_id: string; notification_index: number }[];
}

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  owner: string;
  url: string;
  start_ms: number;
  end_ms: number;
  version: string;
  notification_index: number;
}

type Table = "isas" | "subscriptions";

function asIsa(row: Row): Isa {
  return {
    id: row.id,
    owner: row.owner,
    uss_base_url: row.url,
    time_start: time(row.start_ms),
    time_end: time(row.end_ms),
    version: row.version,
  };
}
const asSubscription = (row: Row): Subscription => ({
  ...asIsa(row),
  notification_index: row.notification_index,
});

/** The extents, or the answer the standard gives for bad ones (a write's too large area is a 400). */
function checked(
  kind: "IdentificationServiceArea" | "Subscription",
  input: Volume4DInput,
  now: number,
  previous?: Row,
): Outcome<Extents> {
  try {
    const prior = previous && { startMs: previous.start_ms, endMs: previous.end_ms };
    return { ok: true, value: extentsOf(kind, input, now, prior) };
  } catch (e) {
    if (e instanceof InvalidExtents || e instanceof AreaTooLarge) return fail(400, e.message);
    throw e;
  }
}

export class RidDss extends DurableObject<Bindings> {
  private readonly sql: SqlStorage;
  private readonly cells: CellIndex;
  private readonly clock = new WriteClock();

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const table of ["isas", "subscriptions"])
      this.sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, owner TEXT NOT NULL,
        url TEXT NOT NULL, start_ms REAL NOT NULL, end_ms REAL NOT NULL, alt_lo REAL, alt_hi REAL,
        version TEXT NOT NULL, notification_index INTEGER NOT NULL DEFAULT 0)`);
    this.cells = new CellIndex(this.sql);
  }

  // --- Identification Service Areas

  searchIsas(cells: string[], earliestMs: number, latestMs: number): Isa[] {
    return this.inCells("isas", cells, Math.max(earliestMs, Date.now()), latestMs).map(asIsa);
  }

  /** Also an ended ISA, until the alarm removes it (the qualifier's ISAExpiry reads one). */
  getIsa(id: string): Outcome<{ service_area: Isa }> {
    const row = this.row("isas", id);
    return row
      ? { ok: true, value: { service_area: asIsa(row) } }
      : fail(404, `IdentificationServiceArea ${id} not found`);
  }

  /** Creates (version undefined) or updates the ISA; returns it and the subscribers now to notify. */
  async putIsa(
    owner: string,
    id: string,
    version: string | undefined,
    body: { extents: Volume4DInput; uss_base_url: string },
  ): Promise<Outcome<{ service_area: Isa; subscribers: SubscriberToNotify[] }>> {
    const outcome = this.ctx.storage.transactionSync(() => {
      const now = Date.now();
      const previous = this.row("isas", id);
      // Bad extents are a 400 before any conflict, as in InterUSS's DSS.
      const extents = checked(
        "IdentificationServiceArea",
        body.extents,
        now,
        version === undefined ? undefined : previous,
      );
      if (!extents.ok) return extents;
      const refused = this.refusal("IdentificationServiceArea", id, previous, owner, version);
      if (refused) return refused;
      const touched = new Set([...(previous ? this.cellsOf("isas", id) : []), ...extents.value.cells]);
      const row = this.write("isas", id, owner, body.uss_base_url, extents.value, previous);
      const subscribers = this.notify([...touched], extents.value.startMs, extents.value.endMs);
      return { ok: true as const, value: { service_area: asIsa(row), subscribers } };
    });
    await this.scheduleExpiry();
    return outcome;
  }

  deleteIsa(
    owner: string,
    id: string,
    version: string,
  ): Outcome<{ service_area: Isa; subscribers: SubscriberToNotify[] }> {
    return this.ctx.storage.transactionSync(() => {
      // An ended ISA can still be deleted, as it can be read, until the alarm removes it.
      const previous = this.row("isas", id);
      if (!previous) return fail(404, `IdentificationServiceArea ${id} not found`);
      const refused = this.refusal("IdentificationServiceArea", id, previous, owner, version, true);
      if (refused) return refused.status === 404 ? fail(403, refused.message) : refused;
      const subscribers = this.notify(this.cellsOf("isas", id), previous.start_ms, previous.end_ms);
      this.remove("isas", id);
      return { ok: true as const, value: { service_area: asIsa(previous), subscribers } };
    });
  }

  // --- Subscriptions

  /** The caller's own subscriptions over the cells. */
  searchSubscriptions(owner: string, cells: string[]): Subscription[] {
    return this.inCells("subscriptions", cells, Date.now(), Number.MAX_SAFE_INTEGER)
      .filter((row) => row.owner === owner)
      .map(asSubscription);
  }

  getSubscription(owner: string, id: string): Outcome<{ subscription: Subscription }> {
    const row = this.live("subscriptions", id);
    if (!row) return fail(404, `Subscription ${id} not found`);
    if (row.owner !== owner) return fail(403, `Subscription ${id} is owned by another client`);
    return { ok: true, value: { subscription: asSubscription(row) } };
  }

  /** Creates (version undefined) or updates the subscription; returns it and the ISAs it now covers. */
  async putSubscription(
    owner: string,
    id: string,
    version: string | undefined,
    body: { extents: Volume4DInput; uss_base_url: string },
  ): Promise<Outcome<{ subscription: Subscription; service_areas: Isa[] }>> {
    const outcome = this.ctx.storage.transactionSync(() => {
      const now = Date.now();
      const previous = this.row("subscriptions", id);
      // Bad extents are a 400 before any conflict, as in InterUSS's DSS.
      const extents = checked(
        "Subscription",
        body.extents,
        now,
        version === undefined ? undefined : previous,
      );
      if (!extents.ok) return extents;
      const refused = this.refusal("Subscription", id, previous, owner, version);
      if (refused) return refused;
      if (this.crowded(owner, id, extents.value.cells, now))
        return fail(429, "too many existing subscriptions in this area already");
      const row = this.write("subscriptions", id, owner, body.uss_base_url, extents.value, previous);
      const service_areas = this.inCells(
        "isas",
        extents.value.cells,
        Math.max(now, row.start_ms),
        row.end_ms,
      );
      return {
        ok: true as const,
        value: { subscription: asSubscription(row), service_areas: service_areas.map(asIsa) },
      };
    });
    await this.scheduleExpiry();
    return outcome;
  }

  deleteSubscription(owner: string, id: string, version: string): Outcome<{ subscription: Subscription }> {
    return this.ctx.storage.transactionSync(() => {
      const previous = this.live("subscriptions", id);
      if (!previous) return fail(404, `Subscription ${id} not found`);
      const refused = this.refusal("Subscription", id, previous, owner, version);
      if (refused) return refused.status === 404 ? fail(403, refused.message) : refused;
      this.remove("subscriptions", id);
      return { ok: true as const, value: { subscription: asSubscription(previous) } };
    });
  }

  /** Removes what ended ENDED_KEPT_MS ago and sets the next alarm. */
  override async alarm(): Promise<void> {
    const now = Date.now() - ENDED_KEPT_MS;
    this.ctx.storage.transactionSync(() => {
      for (const table of ["isas", "subscriptions"] as const) {
        this.sql.exec(
          `DELETE FROM cells WHERE kind = ? AND id IN (SELECT id FROM ${table} WHERE end_ms < ?)`,
          table,
          now,
        );
        this.sql.exec(`DELETE FROM ${table} WHERE end_ms < ?`, now);
      }
    });
    await this.scheduleExpiry();
  }

  // --- inside a transaction

  /** Why a create or update may not go on: 409 for an existing id or a stale version, 404, 403. */
  private refusal(
    kind: string,
    id: string,
    previous: Row | undefined,
    owner: string,
    version: string | undefined,
    endedToo = false,
  ): Refusal | undefined {
    const current = previous && (endedToo || previous.end_ms >= Date.now()) ? previous : undefined;
    if (version === undefined) return current ? fail(409, `${kind} ${id} already exists`) : undefined;
    if (!VERSION.test(version)) return fail(400, `version: ${version} is not a version this DSS gives`);
    if (!current) return fail(404, `${kind} ${id} not found`);
    if (current.owner !== owner) return fail(403, `${kind} ${id} is owned by another client`);
    if (current.version !== version)
      return fail(409, `${kind} ${id} is at version ${current.version}, not ${version}`);
    return undefined;
  }

  private row(table: Table, id: string): Row | undefined {
    return this.sql.exec<Row>(`SELECT * FROM ${table} WHERE id = ?`, id).toArray()[0];
  }

  private live(table: Table, id: string): Row | undefined {
    const row = this.row(table, id);
    return row && row.end_ms >= Date.now() ? row : undefined;
  }

  private cellsOf(table: Table, id: string): string[] {
    return this.cells.of(table, id);
  }

  private inCells(table: Table, cells: string[], fromMs: number, toMs: number): Row[] {
    return this.sql
      .exec<Row>(
        `SELECT * FROM ${table} WHERE id IN (${IDS_IN_CELLS}) AND end_ms >= ? AND start_ms <= ? ORDER BY id`,
        table,
        JSON.stringify(cells),
        fromMs,
        toMs,
      )
      .toArray();
  }

  private crowded(owner: string, id: string, cells: string[], now: number): boolean {
    const full = this.sql
      .exec(
        `SELECT c.cell FROM cells c JOIN subscriptions s ON s.id = c.id WHERE c.kind = 'subscriptions'
          AND s.owner = ? AND s.id != ? AND s.end_ms >= ? AND c.cell IN (SELECT value FROM json_each(?))
          GROUP BY c.cell HAVING COUNT(*) >= ? LIMIT 1`,
        owner,
        id,
        now,
        JSON.stringify(cells),
        MAX_SUBSCRIPTIONS_PER_CELL,
      )
      .toArray();
    return full.length > 0;
  }

  /** A version that grows with every write (microseconds as 16 hex digits), never repeated. */
  private nextVersion(): string {
    return Math.round(this.clock.next() * 1000)
      .toString(16)
      .padStart(16, "0");
  }

  private write(table: Table, id: string, owner: string, url: string, extents: Extents, previous?: Row): Row {
    this.remove(table, id);
    this.sql.exec(
      `INSERT INTO ${table} (id, owner, url, start_ms, end_ms, alt_lo, alt_hi, version, notification_index)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      owner,
      url,
      extents.startMs,
      extents.endMs,
      extents.altitudeLower,
      extents.altitudeUpper,
      this.nextVersion(),
      previous && previous.end_ms >= Date.now() ? previous.notification_index : 0,
    );
    this.cells.write(table, id, extents.cells);
    return this.row(table, id)!;
  }

  private remove(table: Table, id: string) {
    this.cells.remove(table, id);
    this.sql.exec(`DELETE FROM ${table} WHERE id = ?`, id);
  }

  /** Bumps the notification index of every subscription over the cells and window; groups them by USS. */
  private notify(cells: string[], fromMs: number, toMs: number): SubscriberToNotify[] {
    const rows = this.inCells("subscriptions", cells, Math.max(fromMs, Date.now()), toMs);
    const byUrl = new Map<string, SubscriberToNotify>();
    for (const row of rows) {
      const index = row.notification_index + 1;
      this.sql.exec("UPDATE subscriptions SET notification_index = ? WHERE id = ?", index, row.id);
      const entry = byUrl.get(row.url) ?? { url: row.url, subscriptions: [] };
      entry.subscriptions.push({ subscription_id: row.id, notification_index: index });
      byUrl.set(row.url, entry);
    }
    return [...byUrl.values()];
  }

  private scheduleExpiry() {
    return scheduleExpiry(this.ctx.storage, ["isas", "subscriptions"], ENDED_KEPT_MS);
  }
}
