import { describe, expect, it } from "vitest";
import { appRedirectUris, SWIFT_EXAMPLE_REDIRECT_URI } from "../../tools/lib/devIdentityProvider";

describe("IDP_REDIRECT_URIS: the app redirect URIs npm start's development client accepts", () => {
  it("defaults to the Swift SDK example app's <lowercased bundle id>://oauth2/airmap (AppAuth+AirMap.swift 28–29)", () => {
    expect(SWIFT_EXAMPLE_REDIRECT_URI).toBe("com.airmap.airmapsdk-example-ios://oauth2/airmap");
    expect(appRedirectUris(undefined)).toEqual([SWIFT_EXAMPLE_REDIRECT_URI]);
    expect(appRedirectUris(" ")).toEqual([SWIFT_EXAMPLE_REDIRECT_URI]);
  });

  it("takes the app's own, comma-separated, and names a value that is no redirect URI", () => {
    expect(appRedirectUris("com.example.pilot://oauth2/airmap, http://127.0.0.1:7000/cb")).toEqual([
      "com.example.pilot://oauth2/airmap",
      "http://127.0.0.1:7000/cb",
    ]);
    expect(() => appRedirectUris("com.example.pilot")).toThrow('IDP_REDIRECT_URIS: "com.example.pilot"');
    expect(() => appRedirectUris("app://x#frag")).toThrow("is not a redirect URI");
  });
});
