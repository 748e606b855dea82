import { describe, expect, it } from "vitest";
import {
  describeError,
  isTransient,
  namedStep,
  retryStep,
  StepFailed,
  whileLocked,
} from "../../tools/lib/retry";

/** Issue 37, item 9: what `npm start` does when the local platform drops a request. */

/** The error undici throws when the local runtime closes a connection under load. */
function fetchFailed(): Error {
  const cause = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
  return new TypeError("fetch failed", { cause });
}

describe("npm start's steps on a busy machine", () => {
  it("tries a step again after a failure in transit, and goes on", async () => {
    let tries = 0;
    const lines: string[] = [];
    const result = await retryStep(
      "seeding airspace",
      async () => {
        if (++tries < 3) throw fetchFailed();
        return "seeded";
      },
      { backoffMs: 1, log: (line) => lines.push(line) },
    );
    expect(result).toBe("seeded");
    expect(tries).toBe(3);
    expect(lines[0]).toMatch(
      /seeding airspace: fetch failed ← other side closed \(UND_ERR_SOCKET\); trying again/,
    );
  });

  it("gives up after the bounded attempts, naming the step, the cause and what to do", async () => {
    let tries = 0;
    const failure = await retryStep(
      "preparing the local state",
      () =>
        namedStep("seeding airspace", async () => {
          tries++;
          throw fetchFailed();
        }),
      { attempts: 3, backoffMs: 1 },
    ).catch((err: unknown) => err);
    expect(tries).toBe(3);
    expect(failure).toBeInstanceOf(StepFailed);
    const message = (failure as Error).message;
    expect(message).toContain("seeding airspace failed (3 attempts): fetch failed ← other side closed");
    expect(message).toMatch(/busy machine: run `npm start` again/);
  });

  it("does not retry a failure that is not in transit (a broken migration)", async () => {
    let tries = 0;
    const failure = await retryStep("applying the D1 migrations", async () => {
      tries++;
      throw new Error('near "CRATE": syntax error');
    }).catch((err: unknown) => err);
    expect(tries).toBe(1);
    expect((failure as Error).message).toMatch(
      /^applying the D1 migrations failed: near "CRATE": syntax error\n/,
    );
    expect((failure as Error).message).toContain("remove the state directory");
  });

  it("tells transient failures from others, through their causes", () => {
    expect(isTransient(fetchFailed())).toBe(true);
    expect(isTransient(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isTransient(new Error("Command failed: wrangler d1 migrations apply\n✘ fetch failed"))).toBe(true);
    expect(isTransient(new Error("UNIQUE constraint failed: accounts.id"))).toBe(false);
    expect(describeError(new Error("outer", { cause: new Error("inner") }))).toBe("outer ← inner");
  });
});

describe("the operator tools' calls on a database a running copy holds", () => {
  it("are tried again while SQLite says the database is locked, and then answer", async () => {
    let calls = 0;
    const answer = await whileLocked(async () => {
      calls++;
      if (calls < 3)
        throw new Error("Failed query: insert …", {
          cause: new Error("D1_ERROR: database is locked: SQLITE_BUSY"),
        });
      return "written";
    });
    expect(answer).toBe("written");
    expect(calls).toBe(3);
  });

  it("give up on any other failure at once, and on a lock that lasts", async () => {
    let calls = 0;
    await expect(
      whileLocked(async () => {
        calls++;
        throw new Error("UNIQUE constraint failed: api_keys.id");
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      whileLocked(async () => {
        calls++;
        throw new Error("database is locked");
      }),
    ).rejects.toThrow(/locked/);
    expect(calls).toBe(9);
  }, 20_000);
});
