import { beforeAll, describe, expect, it } from "vitest";
import { activeFlightBody } from "./flightFixtures";
import { call, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * D1 read replication (middleware/d1Session.ts): every answer carries the session's bookmark in
 * `x-d1-bookmark`, and a request that sends it back reads at least what that answer wrote.
 */
let account: TestAccount;
let token: string;

beforeAll(async () => {
  account = await createAccount("sessions");
  token = (await tokenFor(account, "session-pilot")).token;
});

describe("x-d1-bookmark", () => {
  it("is returned by a write and, sent back, lets the next read see that write", async () => {
    const created = await call("/flight/v2/point", {
      method: "POST",
      apiKey: account.apiKey,
      token,
      body: activeFlightBody(),
    });
    expect(created.status).toBe(200);
    const bookmark = created.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(/^[0-9a-zA-Z-]+$/);

    const read = await call(`/flight/v2/${created.json.data.id}`, {
      apiKey: account.apiKey,
      token,
      headers: { "x-d1-bookmark": bookmark! },
    });
    expect(read.status).toBe(200);
    expect(read.json.data.id).toBe(created.json.data.id);
    // The read's own bookmark is at least as far on as the one it was given.
    expect(read.headers.get("x-d1-bookmark")! >= bookmark!).toBe(true);
  });

  it("is returned by a read without one (a replica's state, for the client's next request)", async () => {
    const res = await call("/flight/v2?limit=1", { apiKey: account.apiKey, token });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-d1-bookmark")).toMatch(/^[0-9a-zA-Z-]+$/);
  });

  it("refuses a bookmark this service could not have returned, naming the header", async () => {
    const res = await call("/flight/v2?limit=1", {
      apiKey: account.apiKey,
      token,
      headers: { "x-d1-bookmark": "not a bookmark; DROP TABLE" },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0].name).toBe("x-d1-bookmark");
  });

  it("is readable by a browser page (CORS exposes it)", async () => {
    const res = await call("/flight/v2?limit=1", {
      apiKey: account.apiKey,
      token,
      headers: { Origin: "https://app.example" },
    });
    expect(res.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("x-d1-bookmark");
  });
});
