import { loopbackAllowed, outboundUrlProblem } from "../domain/outboundUrl";
import {
  ATTEMPT_TIMEOUT_MS,
  COALESCE_MS,
  delivered,
  deliveryBody,
  EVENT_ID_HEADER,
  MAX_EVENTS_PER_DELIVERY,
  MAX_WAITING_DELIVERIES,
  receiverPauseMs,
  retryDelayMs,
  SIGNATURE_HEADER,
  signatureHeader,
} from "../domain/webhooks";
import type { Bindings } from "../env";
import {
  claimReceiverProbe,
  type FlightWebhook,
  recordReceiverOutcome,
  webhookOfFlight,
} from "../store/webhooks";
import { LazyTables } from "./lazyTables";

/**
 * Conformance webhooks, from the flight's Durable Object: after its conformance events are kept
 * (liveFeed.ts), the new ones are queued in this outbox (in the flight's own SQLite, so a restart
 * loses nothing) when the flight's account registered a webhook; the DO alarm delivers them, never
 * the ingest itself.
 *
 * Bounded fan-out (#27): events are coalesced, one row per delivery holding every event raised within
 * COALESCE_MS of its first (at most MAX_EVENTS_PER_DELIVERY); at most MAX_WAITING_DELIVERIES wait per
 * flight, later events are left out and logged. A failed attempt is retried on the schedule of
 * `retryDelayMs` until MAX_ATTEMPTS, then kept as `failed` (with its last error) and logged. Retries
 * are also capped per receiver, across every flight of the account: after a failure the receiver is
 * paused (`receiverPauseMs`, in D1), a delivery due meanwhile spends its turn without a request, and
 * a paused receiver gets one probe per pause, from the flight that claims it.
 */

const CREATE_TABLES = `
  CREATE TABLE IF NOT EXISTS webhook_outbox (
    seq INTEGER PRIMARY KEY,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    last_error TEXT
  );
  CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (status, next_at);
  CREATE TABLE IF NOT EXISTS webhook_cursor (k TEXT PRIMARY KEY, seq INTEGER NOT NULL);`;

/** Deliveries attempted in one alarm; more wait for the next (scheduled at once). */
const BATCH = 25;

export type DeliveryStatus = "pending" | "delivered" | "failed" | "dropped";

export class WebhookOutbox {
  /** Highest conformance event seq already looked at (queued or not: no webhook then). */
  private cursor: number | undefined;
  /** Outbound requests; the tests put a fake receiver here (a DO's `fetch` is not the test's global). */
  fetcher: (input: string, init: RequestInit) => Promise<Response> = (input, init) => fetch(input, init);

  private readonly tables: LazyTables;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Bindings,
  ) {
    this.tables = new LazyTables(ctx.storage.sql, CREATE_TABLES, "webhook_outbox");
  }

  /**
   * Queues the conformance events kept since the last call for the account's webhook; true when any
   * was queued (the caller schedules the alarm). Events of a flight whose account has no webhook
   * are passed over: a webhook registered later receives only later events. New events join the
   * delivery not yet attempted while it has room; a new delivery is due COALESCE_MS later.
   */
  async collect(now = Date.now()): Promise<boolean> {
    const sql = this.ctx.storage.sql;
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'conformance_events'").toArray().length === 0)
      return false;
    this.tables.ensure();
    const after = this.lastCursor();
    const events = sql
      .exec<{ seq: number; body: string }>(
        "SELECT seq, body FROM conformance_events WHERE seq > ? ORDER BY seq",
        after,
      )
      .toArray();
    if (events.length === 0) return false;
    const flightId = this.ctx.id.name ?? "";
    // Read only on a transition (events are rare): the registration as it is now.
    const webhook = flightId ? await webhookOfFlight(this.env.DB, flightId) : null;
    const last = events.at(-1)!.seq;
    let leftOut = 0;
    this.ctx.storage.transactionSync(() => {
      if (webhook) {
        const touched = new Map<number, { events: string[]; nextAt: number }>();
        let open = this.openDelivery();
        if (open) touched.set(open.seq, open);
        let waiting = sql
          .exec<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_outbox WHERE status = 'pending'")
          .one().n;
        for (const e of events) {
          if (!open || open.events.length >= MAX_EVENTS_PER_DELIVERY) {
            if (waiting >= MAX_WAITING_DELIVERIES) {
              leftOut++;
              continue;
            }
            open = { seq: e.seq, events: [], nextAt: now + COALESCE_MS };
            touched.set(open.seq, open);
            waiting++;
          }
          open.events.push(e.body);
        }
        for (const [seq, d] of touched)
          sql.exec(
            "INSERT OR REPLACE INTO webhook_outbox (seq, body, status, attempts, next_at) VALUES (?, ?, 'pending', 0, ?)",
            seq,
            deliveryBody(flightId, d.events),
            d.nextAt,
          );
      }
      sql.exec("INSERT OR REPLACE INTO webhook_cursor (k, seq) VALUES ('events', ?)", last);
    });
    this.cursor = last;
    if (leftOut > 0)
      console.warn(
        JSON.stringify({
          level: "warn",
          message: "conformance events left out of webhooks: deliveries full",
          flight_id: flightId,
          left_out: leftOut,
        }),
      );
    return webhook !== null;
  }

  /** The newest delivery not yet attempted, which new events may join while it has room. */
  private openDelivery(): { seq: number; events: string[]; nextAt: number } | null {
    const row = this.ctx.storage.sql
      .exec<{ seq: number; body: string; next_at: number }>(
        "SELECT seq, body, next_at FROM webhook_outbox WHERE status = 'pending' AND attempts = 0 ORDER BY seq DESC LIMIT 1",
      )
      .toArray()[0];
    if (!row) return null;
    const parsed = JSON.parse(row.body) as { events?: unknown[] };
    // A row of the one-event format (before coalescing) is delivered as it is.
    if (!Array.isArray(parsed.events)) return null;
    return { seq: row.seq, events: parsed.events.map((e) => JSON.stringify(e)), nextAt: row.next_at };
  }

  /** When the next pending delivery is due, or null. */
  nextDue(): number | null {
    if (!this.tables.exist()) return null;
    return (
      this.ctx.storage.sql
        .exec<{ m: number | null }>("SELECT MIN(next_at) AS m FROM webhook_outbox WHERE status = 'pending'")
        .one().m ?? null
    );
  }

  /** Attempts every due delivery (at most BATCH), each with its own time-out, signed with the current secret. */
  async deliverDue(now = Date.now()): Promise<void> {
    if (!this.tables.exist()) return;
    const sql = this.ctx.storage.sql;
    const due = sql
      .exec<{ seq: number; body: string; attempts: number }>(
        "SELECT seq, body, attempts FROM webhook_outbox WHERE status = 'pending' AND next_at <= ? ORDER BY seq LIMIT ?",
        now,
        BATCH,
      )
      .toArray();
    if (due.length === 0) return;
    const flightId = this.ctx.id.name ?? "";
    const webhook = flightId ? await webhookOfFlight(this.env.DB, flightId) : null;
    if (!webhook) {
      // Unregistered since: nothing to deliver to, and no secret to sign with.
      for (const d of due)
        sql.exec(
          "UPDATE webhook_outbox SET status = 'dropped', last_error = 'webhook removed' WHERE seq = ?",
          d.seq,
        );
      return;
    }
    // Checked again at delivery: a URL stored before this check existed, or under another mode.
    const refused = outboundUrlProblem(webhook.url, {
      allowLoopback: loopbackAllowed(this.env.ENVIRONMENT, this.env.OUTBOUND_ALLOW_LOOPBACK),
    });
    if (refused) {
      for (const d of due)
        sql.exec(
          "UPDATE webhook_outbox SET status = 'failed', last_error = ? WHERE seq = ?",
          `url refused: ${refused}`,
          d.seq,
        );
      return;
    }
    for (const d of due) {
      const error = await this.attemptUnlessPaused(webhook, flightId, d.seq, d.body);
      const attempts = d.attempts + 1;
      if (error === null) {
        sql.exec(
          "UPDATE webhook_outbox SET status = 'delivered', attempts = ?, last_error = NULL WHERE seq = ?",
          attempts,
          d.seq,
        );
        continue;
      }
      const delay = retryDelayMs(attempts);
      if (delay === null) {
        sql.exec(
          "UPDATE webhook_outbox SET status = 'failed', attempts = ?, last_error = ? WHERE seq = ?",
          attempts,
          error,
          d.seq,
        );
        console.error(
          JSON.stringify({
            level: "error",
            message: "conformance webhook given up",
            flight_id: flightId,
            event_id: `${flightId}#${d.seq}`,
            attempts,
            error,
          }),
        );
      } else {
        sql.exec(
          "UPDATE webhook_outbox SET attempts = ?, next_at = ?, last_error = ? WHERE seq = ?",
          attempts,
          Date.now() + delay,
          error,
          d.seq,
        );
      }
    }
  }

  /**
   * One turn of a delivery: a POST unless the receiver is paused by a failure (from any flight of the
   * account) and this flight did not claim its probe. Null when delivered, else why not.
   */
  private async attemptUnlessPaused(
    webhook: FlightWebhook,
    flightId: string,
    seq: number,
    body: string,
  ): Promise<string | null> {
    const now = Date.now();
    const db = this.env.DB;
    if (webhook.failures > 0) {
      const probe = await claimReceiverProbe(db, webhook.accountId, now, now + ATTEMPT_TIMEOUT_MS);
      if (!probe) return `receiver paused after ${webhook.failures} failed attempts`;
    }
    const error = await this.attempt(webhook.url, webhook.secret, `${flightId}#${seq}`, body);
    await recordReceiverOutcome(db, webhook.accountId, error === null, Date.now(), receiverPauseMs);
    // Later deliveries of this alarm see the receiver as it is now.
    if (error === null) webhook.failures = 0;
    else webhook.failures++;
    return error;
  }

  /** Every delivery of the flight, oldest first (tests and operators). */
  deliveries(): {
    seq: number;
    status: DeliveryStatus;
    attempts: number;
    next_at: number;
    last_error: string | null;
  }[] {
    if (!this.tables.exist()) return [];
    return this.ctx.storage.sql
      .exec<{
        seq: number;
        status: DeliveryStatus;
        attempts: number;
        next_at: number;
        last_error: string | null;
      }>("SELECT seq, status, attempts, next_at, last_error FROM webhook_outbox ORDER BY seq")
      .toArray();
  }

  /** Forgets everything (the flight's storage was erased). */
  reset(): void {
    this.tables.forget();
    this.cursor = undefined;
  }

  /** One POST; null when delivered, else why not. */
  private async attempt(url: string, secret: string, eventId: string, body: string): Promise<string | null> {
    try {
      const signature = await signatureHeader(secret, body, Math.floor(Date.now() / 1000));
      const res = await this.fetcher(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Windsock-Webhooks/1",
          [SIGNATURE_HEADER]: signature,
          [EVENT_ID_HEADER]: eventId,
        },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      // The answer's body is not needed; release the connection.
      await res.body?.cancel();
      return delivered(res.status) ? null : `HTTP ${res.status}`;
    } catch (err) {
      return err instanceof Error && err.name === "TimeoutError"
        ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
        : String(err);
    }
  }

  private lastCursor(): number {
    if (this.cursor === undefined) {
      const row = this.ctx.storage.sql
        .exec<{ seq: number }>("SELECT seq FROM webhook_cursor WHERE k = 'events'")
        .toArray()[0];
      this.cursor = row?.seq ?? 0;
    }
    return this.cursor;
  }
}
