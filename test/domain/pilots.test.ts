import { describe, expect, it } from "vitest";
import {
  anonymizedPilotId,
  fullProfile,
  nestingDepth,
  normalizePhone,
  publicProfile,
} from "../../worker/domain/pilots";

describe("normalizePhone", () => {
  it("drops what people type between digits and reads 00 as +", () => {
    expect(normalizePhone("+1 (310) 555-1212")).toBe("+13105551212");
    expect(normalizePhone(" +44 20 7946 0958 ")).toBe("+442079460958");
    expect(normalizePhone("0033 1.23.45.67.89")).toBe("+33123456789");
    expect(normalizePhone("+13105551212")).toBe("+13105551212");
  });

  it("refuses numbers without a country code or outside E.164", () => {
    for (const input of [
      "3105551212",
      "+0310555121",
      "+1234567890123456",
      "+12345",
      "+1 310 555 CALL",
      "",
      "++1310",
    ])
      expect(normalizePhone(input), input).toBeUndefined();
  });
});

describe("nestingDepth", () => {
  it("counts levels of objects and arrays", () => {
    expect(nestingDepth("x")).toBe(0);
    expect(nestingDepth({})).toBe(1);
    expect(nestingDepth({ a: 1, b: [2, { c: [] }] })).toBe(4);
    expect(nestingDepth(JSON.parse("[".repeat(5000) + "]".repeat(5000)))).toBe(5000);
  });
});

describe("profiles", () => {
  const pilot = {
    id: "pilot|abc",
    accountId: "account|x",
    userId: "u",
    username: "ada",
    email: "ada@example.com",
    firstName: "Ada",
    lastName: "Lovelace",
    pictureUrl: null,
    phone: "+13105551212",
    userMetadata: { k: 1 },
    appMetadata: {},
    phoneVerified: true,
    emailVerified: false,
    flightCount: 0,
    createdAt: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
  };
  const statistics = { flight: { total: 2, last_flight_time: Date.UTC(2026, 5, 1) }, aircraft: { total: 1 } };

  it("formats the full profile with ISO times and verification status", () => {
    expect(fullProfile(pilot, "anon|x", statistics)).toEqual({
      id: "pilot|abc",
      anonymized_id: "anon|x",
      email: "ada@example.com",
      first_name: "Ada",
      last_name: "Lovelace",
      username: "ada",
      picture_url: null,
      phone: "+13105551212",
      user_metadata: { k: 1 },
      app_metadata: {},
      created_at: "2026-01-02T03:04:05.006Z",
      verification_status: { email: false, phone: true },
      statistics: {
        flight: { total: 2, last_flight_time: "2026-06-01T00:00:00.000Z" },
        aircraft: { total: 1 },
      },
    });
  });

  it("shows the public exactly id, username and statistics, and no statistics when not asked", () => {
    expect(Object.keys(publicProfile(pilot, statistics))).toEqual(["id", "username", "statistics"]);
    expect(publicProfile(pilot)).toEqual({ id: "pilot|abc", username: "ada" });
    expect("statistics" in fullProfile(pilot, "anon|x")).toBe(false);
  });

  it("gives each pilot a stable anonymized id that does not contain the pilot's id", async () => {
    const id = await anonymizedPilotId("pilot|abc");
    expect(id).toMatch(/^anon\|[0-9a-f]{32}$/);
    expect(id).not.toContain("abc");
    expect(await anonymizedPilotId("pilot|abc")).toBe(id);
    expect(await anonymizedPilotId("pilot|abd")).not.toBe(id);
  });
});
