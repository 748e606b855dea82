import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listManufacturers } from "../../worker/store/aircraft";
import { dbFor } from "../../worker/store/db";
import { call } from "./helpers";
import { asPilot, newPilot } from "./pilotFixtures";

describe("the aircraft catalogue", () => {
  it("lists real manufacturers by name", async () => {
    const pilot = await newPilot();
    const res = await call("/aircraft/v2/manufacturer", { apiKey: pilot.apiKey });
    expect(res.status).toBe(200);
    const names = res.json.data.map((m: { name: string }) => m.name);
    expect(names).toEqual(
      [...names].sort((a: string, b: string) => a.localeCompare(b, "en", { sensitivity: "base" })),
    );
    expect(res.json.data).toContainEqual({ id: "manufacturer|dji", name: "DJI", url: "https://www.dji.com" });
    expect(names).toEqual(expect.arrayContaining(["Autel Robotics", "Parrot", "Skydio"]));
  });

  it("keeps the list of manufacturers a minute in the isolate, then reads it again; a search reads at once", async () => {
    const db = dbFor(env.DB);
    const later = Date.now() + 3_600_000;
    const ids = async (at: number, q?: string) => (await listManufacturers(db, q, at)).map((m) => m.id);
    expect(await ids(later)).not.toContain("manufacturer|loaded-later");
    await env.DB.prepare(
      "INSERT INTO manufacturers (id, name) VALUES ('manufacturer|loaded-later', 'Loaded Later')",
    ).run();
    try {
      expect(await ids(later + 59_000)).not.toContain("manufacturer|loaded-later");
      expect(await ids(later + 59_000, "loaded")).toEqual(["manufacturer|loaded-later"]);
      expect(await ids(later + 61_000)).toContain("manufacturer|loaded-later");
    } finally {
      await env.DB.prepare("DELETE FROM manufacturers WHERE id = 'manufacturer|loaded-later'").run();
      // The isolate's list read again without it, for the files after this one.
      expect(await ids(later + 200_000)).not.toContain("manufacturer|loaded-later");
    }
  });

  it("finds manufacturers by part of the name, ignoring case", async () => {
    const pilot = await newPilot();
    const res = await call("/aircraft/v2/manufacturer?q=parr", { apiKey: pilot.apiKey });
    expect(res.json.data.map((m: { id: string }) => m.id)).toEqual(["manufacturer|parrot"]);
    const literal = await call("/aircraft/v2/manufacturer?q=%25", { apiKey: pilot.apiKey });
    expect(literal.json.data).toEqual([]);
  });

  it("lists models with their manufacturer, filtered by manufacturer and name", async () => {
    const pilot = await newPilot();
    const all = await call("/aircraft/v2/model", { apiKey: pilot.apiKey });
    expect(all.json.data.length).toBeGreaterThan(30);
    expect(all.json.data).toContainEqual({
      id: "model|dji-mavic-3",
      name: "Mavic 3",
      manufacturer: { id: "manufacturer|dji", name: "DJI", url: expect.stringMatching(/^https:\/\//) },
      metadata: { mass_kg: 0.895 },
    });
    const dji = await call(`/aircraft/v2/model?manufacturer=${encodeURIComponent("manufacturer|dji")}`, {
      apiKey: pilot.apiKey,
    });
    expect(dji.json.data.length).toBeGreaterThan(10);
    expect(dji.json.data.every((m: any) => m.manufacturer.id === "manufacturer|dji")).toBe(true);
    const mini = await call("/aircraft/v2/model?q=mini", { apiKey: pilot.apiKey });
    expect(mini.json.data.map((m: { name: string }) => m.name)).toEqual([
      "Mini 2",
      "Mini 3 Pro",
      "Mini 4 Pro",
      "Mini SE",
    ]);
    const byMaker = await call("/aircraft/v2/model?q=skydio", { apiKey: pilot.apiKey });
    expect(byMaker.json.data.length).toBeGreaterThan(0);
  });

  it("reads one model", async () => {
    const pilot = await newPilot();
    const res = await call("/aircraft/v2/model/model%7Cparrot-anafi", { apiKey: pilot.apiKey });
    expect(res.json.data).toEqual({
      id: "model|parrot-anafi",
      name: "ANAFI",
      manufacturer: { id: "manufacturer|parrot", name: "Parrot", url: "https://www.parrot.com" },
      metadata: { mass_kg: 0.32 },
    });
  });
});

describe("the pilot's own aircraft", () => {
  it("creates, lists, reads, renames, changes model and deletes", async () => {
    const pilot = await newPilot();
    const base = `${pilot.path}/aircraft`;
    const created = await asPilot(pilot, base, {
      method: "POST",
      body: { nickname: " Survey bird ", model_id: "model|dji-phantom-4-rtk" },
    });
    expect(created.status).toBe(200);
    const aircraft = created.json.data;
    expect(aircraft).toMatchObject({
      nickname: "Survey bird",
      model: {
        id: "model|dji-phantom-4-rtk",
        name: "Phantom 4 RTK",
        manufacturer: { id: "manufacturer|dji", name: "DJI" },
      },
    });
    expect(aircraft.id).toMatch(/^aircraft\|[0-9A-Za-z]{22}$/);
    const second = await asPilot(pilot, base, {
      method: "POST",
      body: { nickname: "Backup", model_id: "model|dji-mini-2" },
    });

    const list = await asPilot(pilot, base);
    expect(list.json.data.map((a: { id: string }) => a.id)).toEqual([aircraft.id, second.json.data.id]);

    const one = `${base}/${encodeURIComponent(aircraft.id)}`;
    expect((await asPilot(pilot, one)).json.data).toEqual(aircraft);
    // Raw `|` in the path, as the C++ SDK sends it.
    expect((await asPilot(pilot, `${base}/${aircraft.id}`)).json.data).toEqual(aircraft);

    const renamed = await asPilot(pilot, one, { method: "PATCH", body: { nickname: "Mapper" } });
    expect(renamed.json.data).toMatchObject({
      id: aircraft.id,
      nickname: "Mapper",
      model: { id: "model|dji-phantom-4-rtk" },
    });
    const remodelled = await asPilot(pilot, one, {
      method: "PATCH",
      body: { model_id: "model|skydio-2-plus" },
    });
    expect(remodelled.json.data).toMatchObject({
      nickname: "Mapper",
      model: { id: "model|skydio-2-plus", manufacturer: { name: "Skydio" } },
    });
    const untouched = await asPilot(pilot, one, { method: "PATCH", body: {} });
    expect(untouched.json.data).toEqual(remodelled.json.data);

    const deleted = await asPilot(pilot, one, { method: "DELETE" });
    expect(deleted.json).toEqual({ status: "success", data: { id: aircraft.id } });
    expect((await asPilot(pilot, one)).status).toBe(404);
    expect((await asPilot(pilot, base)).json.data.map((a: { id: string }) => a.id)).toEqual([
      second.json.data.id,
    ]);
  });

  it("keeps each pilot's aircraft apart", async () => {
    const pilot = await newPilot();
    const other = await newPilot("bob", pilot.account);
    await asPilot(pilot, `${pilot.path}/aircraft`, {
      method: "POST",
      body: { nickname: "Mine", model_id: "model|dji-avata" },
    });
    expect((await asPilot(other, `${other.path}/aircraft`)).json.data).toEqual([]);
  });
});
