import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { flightAt, hour, iso } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** Flights as they should go: creation, reading, listing, ending and deleting. */

describe("flights by point", () => {
  it("applies the defaults: 100 m circle, now, four hours, private, silent", async () => {
    const account = await createAccount();
    const { token, pilotId } = await tokenFor(account, "pointy");
    const before = Date.now();
    const flight = await flightAt(account, token);
    expect(flight.id).toMatch(/^flight\|[0-9A-Za-z]{22}$/);
    expect(flight).toMatchObject({
      pilot_id: pilotId,
      buffer: 100,
      public: false,
      notify: false,
      latitude: 34.015,
    });
    const start = Date.parse(flight.start_time);
    expect(start).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(flight.end_time) - start).toBe(4 * hour);
    expect(flight.geometry.type).toBe("Polygon");
    const ring = flight.geometry.coordinates[0];
    expect(ring[0]).toEqual(ring[ring.length - 1]);
    expect(flight.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("takes every optional field", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "full");
    const day = iso(Date.now() + 30 * 24 * hour).slice(0, 10);
    const flight = await flightAt(account, token, {
      max_altitude: 120,
      buffer: 250,
      start_time: `${day}T12:00:00-07:00`,
      end_time: `${day}T13:00:00-07:00`,
      public: true,
      notify: true,
    });
    expect(flight).toMatchObject({
      max_altitude: 120,
      buffer: 250,
      public: true,
      notify: true,
      start_time: `${day}T19:00:00.000Z`,
      end_time: `${day}T20:00:00.000Z`,
    });
  });
});

describe("reading flights", () => {
  it("accepts ids with a raw or percent-encoded `|`", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "piper");
    const flight = await flightAt(account, token);
    const raw = await call(`/flight/v2/${flight.id}`, { apiKey: account.apiKey, token });
    const encoded = await call(`/flight/v2/${flight.id.replace("|", "%7C")}`, {
      apiKey: account.apiKey,
      token,
    });
    expect(raw.json.data.id).toBe(flight.id);
    expect(encoded.json.data.id).toBe(flight.id);
  });

  it("adds pilot and aircraft with enhance=true", async () => {
    const account = await createAccount();
    const { token, pilotId } = await tokenFor(account, "enhanced");
    const flight = await flightAt(account, token);
    const plain = await call(`/flight/v2/${flight.id}?enhance=false`, { apiKey: account.apiKey, token });
    expect(plain.json.data.pilot).toBeUndefined();
    const rich = await call(`/flight/v2/${flight.id}?enhance=true`, { apiKey: account.apiKey, token });
    expect(rich.json.data.pilot).toMatchObject({ id: pilotId });
    expect(typeof rich.json.data.pilot.username).toBe("string");
    expect(rich.json.data.aircraft).toBeNull();
  });
});

describe("listing flights", () => {
  it("pages newest first with an opaque cursor, without duplicates while the list changes", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "pager");
    const base = Date.now() + 10 * hour;
    for (let i = 0; i < 7; i++) {
      await flightAt(account, token, {
        start_time: iso(base + i * hour),
        end_time: iso(base + i * hour + 1000),
      });
    }
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const query: string = next ? `?limit=3&cursor=${encodeURIComponent(next)}` : "?limit=3";
      const res = await call(`/flight/v2/${query}`, { apiKey: account.apiKey, token });
      expect(res.status).toBe(200);
      expect(res.json.data.paging.limit).toBe(3);
      seen.push(...res.json.data.results.map((f: { id: string }) => f.id));
      next = res.json.data.paging.next;
      if (pages === 0) {
        // A flight added ahead of the cursor while paging must not shift later pages.
        await flightAt(account, token, {
          start_time: iso(base + 100 * hour),
          end_time: iso(base + 101 * hour),
        });
      }
      pages++;
    } while (next);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    const all = await call("/flight/v2?limit=100", { apiKey: account.apiKey, token });
    const starts = all.json.data.results.map((f: { start_time: string }) => f.start_time);
    expect([...starts].sort().reverse()).toEqual(starts);
    expect(all.json.data.paging).toMatchObject({ total: 8, next: null });
  });

  it("filters by time (with `now`), pilot, place and geometry", async () => {
    const account = await createAccount();
    const pilot = await tokenFor(account, "filtered");
    const other = await tokenFor(account, "neighbour");
    const now = Date.now();
    const active = await flightAt(account, pilot.token, {
      start_time: iso(now - hour),
      end_time: iso(now + hour),
    });
    const past = await flightAt(account, pilot.token, {
      start_time: iso(now - 5 * hour),
      end_time: iso(now - 4 * hour),
    });
    const future = await flightAt(account, pilot.token, {
      start_time: iso(now + 5 * hour),
      end_time: iso(now + 6 * hour),
    });
    const far = await flightAt(account, pilot.token, { latitude: 51.5, longitude: -0.12 });
    const publicOther = await flightAt(account, other.token, { public: true });
    await flightAt(account, other.token);
    const ids = async (query: string, token?: string) => {
      const res = await call(`/flight/v2/${query}`, { apiKey: account.apiKey, token });
      expect(res.status, query).toBe(200);
      return res.json.data.results.map((f: { id: string }) => f.id).sort();
    };
    expect(await ids("?start_before=now&end_after=now", pilot.token)).toEqual([active.id, far.id].sort());
    expect(await ids(`?end_before=${iso(now - 3 * hour)}`, pilot.token)).toEqual([past.id]);
    expect(await ids(`?start_after=${encodeURIComponent(iso(now + 4 * hour))}`, pilot.token)).toEqual([
      future.id,
    ]);
    expect(await ids(`?from=${encodeURIComponent(iso(now + 5.5 * hour))}`, pilot.token)).toEqual([future.id]);
    expect(await ids(`?pilot_id=${encodeURIComponent(other.pilotId)}`, pilot.token)).toEqual([
      publicOther.id,
    ]);
    expect(await ids("")).toEqual([publicOther.id]);
    const london = JSON.stringify({
      type: "Polygon",
      coordinates: [
        [
          [-0.2, 51.4],
          [0, 51.4],
          [0, 51.6],
          [-0.2, 51.6],
          [-0.2, 51.4],
        ],
      ],
    });
    expect(await ids(`?geometry=${encodeURIComponent(london)}`, pilot.token)).toEqual([far.id]);
    await env.DB.prepare("UPDATE flights SET country = 'GBR', city = 'London' WHERE id = ?")
      .bind(far.id)
      .run();
    expect(await ids("?country=GBR&city=London", pilot.token)).toEqual([far.id]);
  });
});

describe("flight lifecycle", () => {
  it("ends an active flight now, a planned one before it flies, and answers an ended one as it ended (CONTRACT §4)", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "ender");
    const now = Date.now();
    const end = (id: string) =>
      call(`/flight/v2/${id}/end`, { method: "POST", apiKey: account.apiKey, token });
    const active = await flightAt(account, token, { start_time: iso(now - hour), end_time: iso(now + hour) });
    const ended = await end(active.id);
    expect(ended.status).toBe(200);
    expect(Date.parse(ended.json.data.end_time)).toBeLessThanOrEqual(Date.now());
    // Ending again keeps the recorded end.
    const again = await end(active.id);
    expect(again.status).toBe(200);
    expect(again.json.data.end_time).toBe(ended.json.data.end_time);
    // A planned flight never flies: it is ended at once.
    const planned = await flightAt(account, token, { start_time: iso(now + hour) });
    const cancelled = await end(planned.id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.data.start_time).toBe(cancelled.json.data.end_time);
    expect(Date.parse(cancelled.json.data.end_time)).toBeLessThanOrEqual(Date.now());
    expect((await end(planned.id)).json.data.end_time).toBe(cancelled.json.data.end_time);
    // `simulate-scenario` ends its flight just after end_time: fine, unchanged.
    const finished = await flightAt(account, token, { start_time: iso(now - hour), end_time: iso(now - 5) });
    const late = await end(finished.id);
    expect(late.status).toBe(200);
    expect(late.json.data.end_time).toBe(iso(now - 5));
  });

  it("closes the flight's telemetry session when it ends", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "streamer");
    const flight = await flightAt(account, token, { start_time: iso(Date.now() - hour) });
    const comm = await call(`/flight/v2/${flight.id}/start-comm`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
    });
    expect(comm.status).toBe(200);
    const open = "SELECT count(*) AS n FROM telemetry_sessions WHERE flight_id = ? AND closed_at IS NULL";
    expect(await env.DB.prepare(open).bind(flight.id).first("n")).toBe(1);
    await call(`/flight/v2/${flight.id}/end`, { method: "POST", apiKey: account.apiKey, token });
    expect(await env.DB.prepare(open).bind(flight.id).first("n")).toBe(0);
  });

  it("erases telemetry recorded before take-off when the flight is deleted", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "early");
    const planned = await flightAt(account, token, { start_time: iso(Date.now() + hour) });
    await call(`/flight/v2/${planned.id}/start-comm`, { method: "POST", apiKey: account.apiKey, token });
    const telemetry = env.FLIGHT_TELEMETRY.get(env.FLIGHT_TELEMETRY.idFromName(planned.id));
    const record = {
      sessionId: "s",
      datagram: "#1",
      serial: 1,
      index: 0,
      type: "barometer",
      timestamp: 1,
      receivedAt: 2,
    };
    await telemetry.ingest([{ ...record, fields: { pressure: 1013 } }]);
    expect(
      (await telemetry.read({ since: 0, limit: 10, types: undefined, after: undefined })).records,
    ).toHaveLength(1);
    await call(`/flight/v2/${planned.id}/delete`, { method: "POST", apiKey: account.apiKey, token });
    expect(
      (await telemetry.read({ since: 0, limit: 10, types: undefined, after: undefined })).records,
    ).toHaveLength(0);
    const open = "SELECT count(*) AS n FROM telemetry_sessions WHERE flight_id = ? AND closed_at IS NULL";
    expect(await env.DB.prepare(open).bind(planned.id).first("n")).toBe(0);
  });

  it("deletes a planned or ended flight, then it is gone everywhere; an active one is 409", async () => {
    const account = await createAccount();
    const { token } = await tokenFor(account, "deleter");
    const now = Date.now();
    const planned = await flightAt(account, token, { start_time: iso(now + hour), public: true });
    const deleted = await call(`/flight/v2/${planned.id}/delete`, {
      method: "POST",
      apiKey: account.apiKey,
      token,
    });
    expect(deleted.status).toBe(200);
    expect(deleted.json.data).toEqual({ id: planned.id });
    expect((await call(`/flight/v2/${planned.id}`, { apiKey: account.apiKey, token })).status).toBe(404);
    expect(
      (await call(`/flight/v2/${planned.id}/delete`, { method: "POST", apiKey: account.apiKey, token }))
        .status,
    ).toBe(404);
    const list = await call("/flight/v2/", { apiKey: account.apiKey, token });
    expect(list.json.data.results).toHaveLength(0);
    expect(list.json.data.paging.total).toBe(0);
    const started = await flightAt(account, token, { start_time: iso(now - hour) });
    const remove = (id: string) =>
      call(`/flight/v2/${id}/delete`, { method: "POST", apiKey: account.apiKey, token });
    const refused = await remove(started.id);
    expect(refused.status).toBe(409);
    expect(refused.json.data.message).toMatch(/end it first/);
    // Ended, it goes (it leaves the pilot's history).
    await call(`/flight/v2/${started.id}/end`, { method: "POST", apiKey: account.apiKey, token });
    expect((await remove(started.id)).status).toBe(200);
    expect((await call(`/flight/v2/${started.id}`, { apiKey: account.apiKey, token })).status).toBe(404);
  });
});
