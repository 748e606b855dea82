import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { HEAVY_BODY_BYTES, withAccountWork } from "../../worker/middleware/accountWork";
import { call, createAccount, type TestAccount } from "./helpers";

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount("account-work");
});

/** An expensive request (`POST /rules/v1/evaluation`) whose body is `bytes` long (padded JSON). */
function evaluation(bytes: number) {
  const body = `{"geometry":{"type":"Point","coordinates":[-118.485,34.015]}}`;
  return call("/rules/v1/evaluation", {
    method: "POST",
    apiKey: account.apiKey,
    body: body.padEnd(bytes, " "),
  });
}

describe("the heaviest class of expensive requests", () => {
  it("runs 1 at once per account: a body over HEAVY_BODY_BYTES waits while one expensive request runs", async () => {
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseHeld = resolve;
    });
    // One of the account's 2 turns is taken.
    const holder = withAccountWork(env, account.accountId, () => held, 2);
    let heavySettled = false;
    const heavy = evaluation(HEAVY_BODY_BYTES + 1024).then((res) => {
      heavySettled = true;
      return res;
    });
    // A light request still takes the second turn.
    const light = await evaluation(100);
    expect(light.status).not.toBe(429);
    await new Promise((r) => setTimeout(r, 300));
    expect(heavySettled).toBe(false);
    releaseHeld();
    await holder;
    expect((await heavy).status).toBe(light.status);
  });
});
