import { describe, expect, it } from "vitest";
import { call } from "./helpers";
import { asPilot, newPilot } from "./pilotFixtures";

function fieldNames(res: { json: any }): string[] {
  return res.json.data.errors.map((e: { name: string }) => e.name).sort();
}

describe("aircraft input", () => {
  it("names a missing or empty nickname and a missing model", async () => {
    const pilot = await newPilot();
    const base = `${pilot.path}/aircraft`;
    const empty = await asPilot(pilot, base, { method: "POST", body: {} });
    expect(empty.status).toBe(400);
    expect(fieldNames(empty)).toEqual(["model_id", "nickname"]);
    const blank = await asPilot(pilot, base, {
      method: "POST",
      body: { nickname: "   ", model_id: "model|dji-mini-2" },
    });
    expect(fieldNames(blank)).toEqual(["nickname"]);
    const long = await asPilot(pilot, base, {
      method: "POST",
      body: { nickname: "x".repeat(65), model_id: "model|dji-mini-2" },
    });
    expect(fieldNames(long)).toEqual(["nickname"]);
    const wrongTypes = await asPilot(pilot, base, {
      method: "POST",
      body: { nickname: 7, model_id: ["model|dji-mini-2"] },
    });
    expect(fieldNames(wrongTypes)).toEqual(["model_id", "nickname"]);
  });

  it("names a model that is not in the catalogue, on create and on change", async () => {
    const pilot = await newPilot();
    const base = `${pilot.path}/aircraft`;
    const unknown = await asPilot(pilot, base, {
      method: "POST",
      body: { nickname: "X", model_id: "model|nope" },
    });
    expect(unknown.status).toBe(400);
    expect(fieldNames(unknown)).toEqual(["model_id"]);
    const created = await asPilot(pilot, base, {
      method: "POST",
      body: { nickname: "X", model_id: "model|dji-fpv" },
    });
    const one = `${base}/${encodeURIComponent(created.json.data.id)}`;
    const change = await asPilot(pilot, one, { method: "PATCH", body: { model_id: "model|nope" } });
    expect(change.status).toBe(400);
    expect(fieldNames(change)).toEqual(["model_id"]);
    expect((await asPilot(pilot, one)).json.data.model.id).toBe("model|dji-fpv");
  });

  it("is 404 for an aircraft the pilot does not have", async () => {
    const pilot = await newPilot();
    const missing = `${pilot.path}/aircraft/aircraft%7Cmissing`;
    expect((await asPilot(pilot, missing)).status).toBe(404);
    expect((await asPilot(pilot, missing, { method: "PATCH", body: { nickname: "Y" } })).status).toBe(404);
    expect((await asPilot(pilot, missing, { method: "DELETE" })).status).toBe(404);
  });

  it("is 404 for an unknown model and 400 for an empty search", async () => {
    const pilot = await newPilot();
    expect((await call("/aircraft/v2/model/model%7Cnope", { apiKey: pilot.apiKey })).status).toBe(404);
    const empty = await call("/aircraft/v2/model?q=", { apiKey: pilot.apiKey });
    expect(empty.status).toBe(400);
    expect(fieldNames(empty)).toEqual(["q"]);
  });

  it("answers 405 for a method the aircraft routes do not take", async () => {
    const pilot = await newPilot();
    const res = await asPilot(pilot, `${pilot.path}/aircraft`, { method: "PUT", body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toContain("POST");
  });
});
