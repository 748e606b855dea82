import { describe, expect, it } from "vitest";
import type { Authorization } from "../../worker/domain/deeplink/callbacks";
import { authorizationStep, verdictOf } from "../../worker/domain/deeplink/nextSteps";

const laanc = (status: Authorization["status"]): Authorization => ({
  description: "LAANC authorization at KBNA NASHVILLE up to 328 ft AGL",
  status,
  message: "Above the facility-map ceiling of 200 ft",
  authority: { id: "faa-laanc", name: "FAA LAANC" },
});

describe("what a created flight's authorizations mean", () => {
  it("says each status in words with the authority's name, and what to do", () => {
    expect(authorizationStep(laanc("accepted"), "Partner").status).toBe("Accepted by FAA LAANC");
    expect(authorizationStep(laanc("pending"), "Partner").status).toBe("Pending: waiting for FAA LAANC");
    expect(authorizationStep(laanc("rejected"), "Partner").todo).toContain(
      "create the flight again from Partner",
    );
    expect(authorizationStep(laanc("not_requested"), "Partner").todo).toContain("request it yourself");
    expect(authorizationStep(laanc("cancelled"), "Partner").status).toBe("Cancelled by FAA LAANC");
  });

  it("lets the worst authorization decide the verdict", () => {
    expect(verdictOf([])).toBe("not_required");
    expect(verdictOf([laanc("accepted")])).toBe("authorized");
    expect(verdictOf([laanc("accepted"), laanc("pending")])).toBe("waiting");
    expect(verdictOf([laanc("pending"), laanc("rejected")])).toBe("not_authorized");
    expect(verdictOf([laanc("not_requested")])).toBe("not_authorized");
  });
});
