import { describe, expect, it } from "vitest";
import { createPlan, planBody, square } from "./flightFixtures";
import { call, createAccount, tokenFor } from "./helpers";

/** Plans are their pilot's alone (worker/middleware/ownFlight.ts): 403 for another pilot, 404 for another account. */

describe("flight plans: security", () => {
  it("keeps plans to their pilot and account", async () => {
    const account = await createAccount();
    const owner = await tokenFor(account, "owner");
    const other = await tokenFor(account, "other");
    const plan = await createPlan(account, owner.token);
    const read = await call(`/flight/v2/plan/${plan.id}`, { apiKey: account.apiKey, token: other.token });
    expect(read.status).toBe(403);
    const submit = await call(`/flight/v2/plan/${plan.id}/submit`, {
      method: "POST",
      apiKey: account.apiKey,
      token: other.token,
    });
    expect(submit.status).toBe(403);
    const foreign = await createAccount();
    const stranger = await tokenFor(foreign, "owner");
    const cross = await call(`/flight/v2/plan/${plan.id}`, { apiKey: foreign.apiKey, token: stranger.token });
    expect(cross.status).toBe(404);
    const spoof = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token: other.token,
      body: planBody({ pilot_id: owner.pilotId }),
    });
    expect(spoof.status).toBe(403);
    const noToken = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      body: planBody(),
    });
    expect(noToken.status).toBe(401);
    const ownGeometry = await call("/flight/v2/plan", {
      method: "POST",
      apiKey: account.apiKey,
      token: owner.token,
      body: planBody({ geometry: square }),
    });
    expect(ownGeometry.status).toBe(200);
  });

  it("refuses another pilot's plan before reading the body, and its briefing and deletion too", async () => {
    const account = await createAccount();
    const owner = await tokenFor(account, "owner");
    const other = await tokenFor(account, "other");
    const plan = await createPlan(account, owner.token);
    const as = (token: string, method: string, path: string, body?: unknown) =>
      call(path, { method, apiKey: account.apiKey, token, body });
    const patch = await as(other.token, "PATCH", `/flight/v2/plan/${plan.id}`, { max_altitude_agl: -1 });
    expect(patch.status).toBe(403);
    expect((await as(other.token, "GET", `/flight/v2/plan/${plan.id}/briefing`)).status).toBe(403);
    expect((await as(other.token, "DELETE", `/flight/v2/plan/${plan.id}`)).status).toBe(403);
    expect((await as(owner.token, "GET", `/flight/v2/plan/${plan.id}`)).status).toBe(200);
    const foreign = await createAccount();
    const stranger = await tokenFor(foreign, "owner");
    const briefing = await call(`/flight/v2/plan/${plan.id}/briefing`, {
      apiKey: foreign.apiKey,
      token: stranger.token,
    });
    expect(briefing.status).toBe(404);
  });
});
