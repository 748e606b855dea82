import { describe, expect, it } from "vitest";
import { assetLinks, destination, platformOf, readOuterLink } from "../../worker/domain/deeplink/outerLink";

const ORIGIN = "https://windsock.test";
const LINK = `${ORIGIN}/create_flight/v1/?geometry=%7B%7D&client_id=acme`;

describe("the served outer link", () => {
  it("tells the platform from the user agent, iPadOS's desktop one included", () => {
    expect(platformOf("Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/126 Mobile Safari/537.36")).toBe(
      "android",
    );
    expect(platformOf("Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) Mobile/15E148")).toBe("ios");
    expect(
      platformOf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Version/17.5 Mobile/15E148 Safari/604.1"),
    ).toBe("ios");
    expect(platformOf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Version/17.5 Safari/605.1.15")).toBe(
      "desktop",
    );
    expect(platformOf(undefined)).toBe("desktop");
  });

  it("uses Firebase's afl and ifl fallbacks when they are on the service, and the stores otherwise", () => {
    const query = new URLSearchParams({
      link: LINK,
      apn: "com.acme.app",
      isi: "123",
      ibi: "com.acme.app",
      efr: "1",
    });
    const plain = readOuterLink(query, [ORIGIN], undefined);
    expect(plain.ok).toBe(true);
    if (!plain.ok) return;
    expect(destination(plain.value, "ios").location).toBe("https://apps.apple.com/app/id123");
    expect(destination(plain.value, "desktop").location).toBe(LINK);
    query.set("ifl", `${ORIGIN}/docs`);
    const withIfl = readOuterLink(query, [ORIGIN], undefined);
    expect(withIfl.ok && destination(withIfl.value, "ios").location).toBe(`${ORIGIN}/docs`);
    // Without an Android package the Android visitor gets the web page.
    query.delete("apn");
    const noApn = readOuterLink(query, [ORIGIN], undefined);
    expect(noApn.ok && destination(noApn.value, "android").location).toBe(LINK);
  });

  it("accepts the operator's own ofl even on another host", () => {
    const query = new URLSearchParams({ link: LINK, ofl: "https://operator.example/about" });
    expect(readOuterLink(query, [ORIGIN], undefined).ok).toBe(false);
    const read = readOuterLink(query, [ORIGIN], "https://operator.example/about");
    expect(read.ok && destination(read.value, "desktop").location).toBe("https://operator.example/about");
  });
});

describe("asset links", () => {
  it("upper-cases good fingerprints and names the bad ones", () => {
    const good =
      "14:6d:e9:83:c5:73:06:50:d8:ee:b9:95:2f:34:fc:64:16:a0:83:42:e6:1d:be:a8:8a:04:96:b2:3f:cf:44:e5";
    const ok = assetLinks("com.acme.app", [good]);
    expect(ok.ok && JSON.stringify(ok.value)).toContain(good.toUpperCase());
    expect(assetLinks("com.acme.app", [good, "AB:CD"])).toEqual({ ok: false, bad: ["AB:CD"] });
  });
});
