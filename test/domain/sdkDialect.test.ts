import { describe, expect, it } from "vitest";
import { acceptedUponSubmission, dialectOf } from "../../worker/domain/sdkDialect";

describe("dialectOf: which SDK asks, from the User-Agent its HTTP stack sends", () => {
  it("tells the three SDKs apart and gives anyone else the default (C++) words", () => {
    // platform-sdk src/airmap/net/http/user_agent.cpp
    expect(dialectOf("AirMap/2.0.0")).toBe("cpp");
    // OkHttp's own User-Agent (AirMapSDK-Android airmapsdk/build.gradle: okhttp 3.14.7)
    expect(dialectOf("okhttp/3.14.7")).toBe("android");
    expect(dialectOf("okhttp/4.9.0")).toBe("android");
    // Alamofire 4's default User-Agent (AirMapSDK-Swift Cartfile.resolved: Alamofire 4.7.2)
    expect(dialectOf("Demo/1.0 (com.example.demo; build:3; iOS 12.4.0) Alamofire/4.7.2")).toBe("swift");
    for (const other of [
      undefined,
      "",
      "curl/8.5.0",
      "Mozilla/5.0 (X11; Linux x86_64)",
      "python-requests/2.31",
    ])
      expect(dialectOf(other)).toBe("cpp");
  });

  it("chooses the word for an authorization that submitting would grant", () => {
    expect(acceptedUponSubmission("cpp")).toBe("accepted_upon_submission");
    expect(acceptedUponSubmission("android")).toBe("authorized_upon_submission");
    expect(acceptedUponSubmission("swift")).toBe("authorized_upon_submission");
  });
});
