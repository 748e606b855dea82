import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_LINK_BYTES } from "../../worker/domain/deeplink/link";
import { BASE, call, createAccount, type TestAccount, tokenFor } from "./helpers";

const square = {
  type: "Polygon",
  coordinates: [
    [
      [-84.3, 36.6],
      [-84.29, 36.6],
      [-84.29, 36.61],
      [-84.3, 36.61],
      [-84.3, 36.6],
    ],
  ],
};

let account: TestAccount;
let publicId: string;

beforeAll(async () => {
  account = await createAccount("partner app");
  const row = await env.DB.prepare("SELECT public_id FROM accounts WHERE id = ?")
    .bind(account.accountId)
    .first<{ public_id: string }>();
  publicId = row!.public_id;
  // Two rulesets for the builder to know; the page's choice among real ones is driven in Chromium.
  await env.DB.batch(
    ["usa_part_107", "usa_sec_44809"].map((id, i) =>
      env.DB.prepare(
        `INSERT INTO rulesets (id, jurisdiction_id, name, short_name, description, selection_type, is_default, airspace_types, display_order)
         VALUES (?, 1, ?, ?, '', 'pick1', ?, '[]', ?)`,
      ).bind(id, id, id, i === 0 ? 1 : 0, i),
    ),
  );
  const added = await call("/deeplink/v1/callbacks", {
    method: "POST",
    apiKey: account.apiKey,
    body: { url: "https://partner.example/cb" },
  });
  expect(added.status).toBe(200);
});

describe("callback registry", () => {
  it("stores a normalized prefix once and lists only the account's own", async () => {
    const again = await call("/deeplink/v1/callbacks", {
      method: "POST",
      apiKey: account.apiKey,
      body: { url: "https://PARTNER.example:443/x/../cb" },
    });
    expect(again.status).toBe(200);
    expect(again.json.data.url).toBe("https://partner.example/cb");
    const list = await call("/deeplink/v1/callbacks", { apiKey: account.apiKey });
    expect(list.json.data.map((p: { url: string }) => p.url)).toEqual(["https://partner.example/cb"]);
    const other = await createAccount("other app");
    const otherList = await call("/deeplink/v1/callbacks", { apiKey: other.apiKey });
    expect(otherList.json).toEqual({ status: "success", data: [] });
  });

  it("refuses plain http outside localhost, queries and junk, naming url", async () => {
    for (const url of [
      "http://partner.example/cb",
      "https://partner.example/cb?x=1",
      "not a url",
      "ftp://partner.example/",
    ]) {
      const res = await call("/deeplink/v1/callbacks", {
        method: "POST",
        apiKey: account.apiKey,
        body: { url },
      });
      expect(res.status, url).toBe(400);
      expect(res.json.data.errors[0].name).toBe("url");
    }
    const local = await call("/deeplink/v1/callbacks", {
      method: "POST",
      apiKey: account.apiKey,
      body: { url: "http://127.0.0.1:9999/done" },
    });
    expect(local.status).toBe(200);
  });

  it("needs an API key", async () => {
    expect((await call("/deeplink/v1/callbacks")).status).toBe(401);
    expect(
      (await call("/deeplink/v1/create_flight", { method: "POST", body: { geometry: square } })).status,
    ).toBe(401);
  });
});

describe("POST /deeplink/v1/create_flight", () => {
  it("builds the dynamic link around the creation link, with the operator's parameters unmodified", async () => {
    const res = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: {
        geometry: square,
        callback_url: "https://partner.example/cb/done?state=xyz",
        altitude: 100,
        ruleset_ids: ["usa_part_107", "usa_sec_44809"],
      },
    });
    expect(res.status).toBe(200);
    const outer = new URL(res.json.data.link);
    // The default outer link is the service's own (Firebase Dynamic Links is gone).
    expect(`${outer.origin}${outer.pathname}`).toBe(`${BASE}/deeplink/v1/open`);
    const p = outer.searchParams;
    expect(p.get("apn")).toBe(env.DEEPLINK_APN);
    expect(p.get("isi")).toBe(env.DEEPLINK_ISI);
    expect(p.get("ibi")).toBe(env.DEEPLINK_IBI);
    // No desktop link configured by default: the served outer link sends desktops to the creation page.
    expect(p.has("ofl")).toBe(false);
    expect(p.get("pt")).toBe(env.DEEPLINK_PT);
    expect([p.get("efr"), p.get("utm_source"), p.get("utm_medium"), p.get("utm_campaign")]).toEqual([
      "1",
      "partner",
      "deeplink",
      "laanc",
    ]);
    expect([p.get("utm_content"), p.get("ct"), p.get("mt")]).toEqual([publicId, "laanc", "8"]);
    // The creation link is one URI-encoded value: none of its own parameters leak out.
    expect(p.has("geometry")).toBe(false);
    expect(p.has("callback_url")).toBe(false);
    const creation = new URL(p.get("link")!);
    expect(`${creation.origin}${creation.pathname}`).toBe(`${BASE}/create_flight/v1/`);
    expect(JSON.parse(creation.searchParams.get("geometry")!)).toEqual({ geometry: square });
    expect(creation.searchParams.get("callback_url")).toBe("https://partner.example/cb/done?state=xyz");
    expect(creation.searchParams.get("altitude")).toBe("100");
    expect(creation.searchParams.get("ruleset_ids")).toBe("usa_part_107,usa_sec_44809");
    expect(creation.searchParams.get("client_id")).toBe(publicId);
  });

  it("takes a Point with its buffer and comma-separated rulesets", async () => {
    const res = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: {
        geometry: { type: "Point", coordinates: [-84.3, 36.6] },
        buffer: 250,
        ruleset_ids: "usa_part_107",
      },
    });
    expect(res.status).toBe(200);
    const creation = new URL(new URL(res.json.data.link).searchParams.get("link")!);
    expect(creation.searchParams.get("buffer")).toBe("250");
    expect(creation.searchParams.has("callback_url")).toBe(false);
  });

  it("refuses a callback outside the account's prefixes: no open redirect", async () => {
    for (const callback_url of [
      "https://evil.example/cb",
      "https://partner.example.evil.example/cb",
      "https://partner.example/cbx",
      "http://partner.example/cb",
    ]) {
      const res = await call("/deeplink/v1/create_flight", {
        method: "POST",
        apiKey: account.apiKey,
        body: { geometry: square, callback_url },
      });
      expect(res.status, callback_url).toBe(400);
      expect(res.json.data.errors).toEqual([{ name: "callback_url", message: expect.any(String) }]);
    }
    const other = await createAccount("no callbacks");
    const res = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: other.apiKey,
      body: { geometry: square, callback_url: "https://partner.example/cb" },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0].message).toMatch(/not registered/);
  });

  it("refuses ruleset ids that name no ruleset", async () => {
    const res = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: square, ruleset_ids: "usa_part_107,usa_nope" },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors).toEqual([{ name: "ruleset_ids", message: "unknown rulesets: usa_nope" }]);
  });

  it("names every invalid field", async () => {
    const res = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: {
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
            ],
          ],
        },
        altitude: -1,
        ruleset_ids: "Part 107",
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors.map((e: { name: string }) => e.name).sort()).toEqual([
      "altitude",
      "geometry",
      "ruleset_ids",
    ]);
    const polygonBuffer = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: square, buffer: 30 },
    });
    expect(polygonBuffer.json.data.errors).toEqual([
      { name: "buffer", message: "applies only to LineString and Point geometries" },
    ]);
    const wrongType = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: square, altitude: "high" },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.data.errors[0].name).toBe("altitude");
    const missing = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: {},
    });
    expect(missing.status).toBe(400);
    expect(missing.json.data.errors[0].name).toBe("geometry");
  });

  it("is documented in the OpenAPI document", async () => {
    const doc = await call("/openapi.json");
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining(["/deeplink/v1/create_flight", "/deeplink/v1/callbacks"]),
    );
  });
});

/** The creation link's path; built with a pilot's token, it carries that pilot's single-use sign-in. */
async function creationPath(body: Record<string, unknown>, pilotToken?: string): Promise<string> {
  const res = await call("/deeplink/v1/create_flight", {
    method: "POST",
    apiKey: account.apiKey,
    body,
    ...(pilotToken ? { token: pilotToken } : {}),
  });
  expect(res.status, res.text).toBe(200);
  const creation = new URL(new URL(res.json.data.link).searchParams.get("link")!);
  return `${creation.pathname}${creation.search}`;
}

/** A link's address on a page, unescaped. */
function linkHref(html: string, id: string): string {
  const href = new RegExp(`<a id="${id}"[^>]* href="([^"]+)"`).exec(html)?.[1];
  if (!href) throw new Error(`no link #${id} on the page`);
  return href.replace(/&amp;/g, "&");
}

const returnLink = (html: string) => linkHref(html, "return-link");

describe("GET /create_flight/v1/", () => {
  it("is public and shows the form for the link's account, in the pilot's unit", async () => {
    const path = await creationPath({
      geometry: square,
      altitude: 100,
      callback_url: "https://partner.example/cb",
    });
    const res = await call(path, { headers: { "accept-language": "en-US,en;q=0.8" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    // The form posts only here: the callback is a link on the result page, not a form's target.
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self';");
    expect(res.text).toContain("partner app");
    // No typed user id: without a sign-in the page says what the operator must set, and offers no creation.
    expect(res.text).not.toContain('name="user_id"');
    expect(res.text).toContain("has not set up pilot sign-in");
    expect(res.text).toContain("npm run pilots:provider");
    expect(res.text).not.toContain('value="create"');
    // 100 m snaps to 350 ft (106.68 m), shown selected; a Polygon has no buffer field.
    expect(res.text).toMatch(/<option value="106.68" selected="">350 ft<\/option>/);
    expect(res.text).not.toContain('id="buffer"');
    expect(res.text).toContain("<svg");
    const metric = await call(path, { headers: { "accept-language": "de-DE" } });
    expect(metric.text).toMatch(/<option value="100" selected="">100 m<\/option>/);
  });

  it("offers a buffer for a Point, in the pilot's unit", async () => {
    const path = await creationPath({
      geometry: { type: "Point", coordinates: [-84.3, 36.6] },
      buffer: 30.48,
    });
    const res = await call(`${path}&units=imperial`);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/id="buffer"[^>]*value="100"/);
  });

  it("offers a buffer along a path and draws the path", async () => {
    const path = await creationPath({
      geometry: {
        type: "LineString",
        coordinates: [
          [-84.3, 36.6],
          [-84.29, 36.605],
        ],
      },
      buffer: 25,
    });
    const res = await call(`${path}&units=metric`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("Buffer around the path (m)");
    expect(res.text).toMatch(/id="buffer"[^>]*value="25"/);
    expect(res.text).toContain('stroke-dasharray="6 4"');
  });

  it("refuses a tampered callback, an unknown client and a broken geometry, saying why", async () => {
    const path = await creationPath({ geometry: square, callback_url: "https://partner.example/cb" });
    const tampered = path.replace(
      encodeURIComponent("https://partner.example/cb"),
      encodeURIComponent("https://evil.example/cb"),
    );
    const refused = await call(tampered);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("callback_url");
    expect(refused.text).toContain("not registered");
    expect(refused.text).not.toContain("<form");
    const unknown = await call(path.replace(publicId, "app_nobody"));
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("names no active application");
    const broken = await call(`/create_flight/v1/?geometry=%7Bnope&client_id=${publicId}`);
    expect(broken.status).toBe(400);
    expect(broken.text).toContain("geometry");
  });

  it("stops working when the application's keys are all revoked", async () => {
    const partner = await createAccount("revoked partner");
    const res = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: partner.apiKey,
      body: { geometry: square },
    });
    const creation = new URL(new URL(res.json.data.link).searchParams.get("link")!);
    expect((await call(`${creation.pathname}${creation.search}`)).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(Date.now(), partner.keyId)
      .run();
    const revoked = await call(`${creation.pathname}${creation.search}`);
    expect(revoked.status).toBe(400);
    expect(revoked.text).toContain("names no active application");
  });

  it("cannot be used to call the API without a key", async () => {
    const res = await call("/flight/v2/plan", { method: "POST", body: { geometry: square } });
    expect(res.status).toBe(401);
  });
});

describe("POST /create_flight/v1/", () => {
  const form = (fields: Record<string, string | string[]>) => {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
    return body.toString();
  };
  const post = (path: string, fields: Record<string, string | string[]>) =>
    call(path, {
      method: "POST",
      body: form(fields),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });

  it("shows the errors of bad input next to their fields and keeps what the pilot entered", async () => {
    const path = await creationPath({ geometry: { type: "Point", coordinates: [-84.3, 36.6] }, buffer: 50 });
    const res = await post(`${path}&units=metric`, {
      altitude: "33",
      buffer: "-5",
      start: "7",
      duration: "60",
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('role="alert"');
    for (const field of ["sign_in", "altitude", "buffer", "start"]) {
      expect(res.text).toContain(`href="#${field}"`);
      expect(res.text).toContain(`id="${field}-error"`);
    }
    expect(res.text).toMatch(/id="buffer"[^>]*value="-5"[^>]*aria-invalid="true"/);
  });

  it("signs the pilot in, creates and submits the plan, and shows the way back to the callback", async () => {
    const callback = "https://partner.example/cb?state=s1";
    const pilot = await tokenFor(account, "web-pilot");
    const path = await creationPath({ geometry: square, altitude: 60, callback_url: callback }, pilot.token);
    const page = await call(`${path}&units=metric`);
    expect(page.text).toContain("You are signed in");
    const chosen = [...page.text.matchAll(/name="(pick1-\w+|ruleset)" value="([^"]+)" checked=""/g)].map(
      (m) => [m[1]!, m[2]!] as const,
    );
    const fields: Record<string, string | string[]> = {
      altitude: "60",
      start: "0",
      duration: "60",
      action: "create",
    };
    for (const [name, value] of chosen) fields[name] = [fields[name] ?? [], value].flat();
    // The result page, whose "Return to …" link is the callback with the flight.
    const res = await post(`${path}&units=metric`, fields);
    expect(res.status, res.text.slice(0, 800)).toBe(200);
    expect(res.text).toContain("<h1>Flight created</h1>");
    expect(res.text).toContain("Requested by <strong>partner app</strong>");
    const location = new URL(returnLink(res.text));
    expect(`${location.origin}${location.pathname}`).toBe("https://partner.example/cb");
    expect(location.searchParams.get("state")).toBe("s1");
    const flightId = location.searchParams.get("flight_id")!;
    expect(flightId).toMatch(/^flight\|/);
    const authorizations = JSON.parse(location.searchParams.get("authorizations")!);
    expect(Array.isArray(authorizations)).toBe(true);
    for (const a of authorizations) {
      expect(Object.keys(a).sort()).toEqual(["authority", "description", "message", "status"]);
      expect(["pending", "accepted", "rejected", "not_requested", "cancelled"]).toContain(a.status);
    }
    // The flight is the pilot's under the partner's account: the pilot's own token reads it.
    const flight = await call(`/flight/v2/${encodeURIComponent(flightId)}`, {
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(flight.status).toBe(200);
    expect(flight.json.data.pilot_id).toBe(pilot.pilotId);
    expect(flight.json.data.max_altitude).toBe(60);
    expect(flight.json.data.authorizations).toEqual(authorizations);

    // The link's sign-in is single-use: posted again, it creates nothing.
    const again = await post(`${path}&units=metric`, fields);
    expect(again.status).toBe(400);
    expect(again.text).toContain("used or has expired");
  });

  it("shows the flight and its authorizations when the link has no callback", async () => {
    const pilot = await tokenFor(account, "no-callback");
    const path = await creationPath(
      { geometry: { type: "Point", coordinates: [-84.3, 36.6] }, buffer: 40 },
      pilot.token,
    );
    const res = await post(`${path}&units=metric`, {
      altitude: "30",
      buffer: "40",
      start: "15",
      duration: "30",
      action: "create",
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain("<h1>Flight created</h1>");
    expect(res.text).not.toContain('id="return-link"');
    const flightId = /id="flight-id">([^<]+)</.exec(res.text)![1]!;
    const flight = await call(`/flight/v2/${encodeURIComponent(flightId)}`, {
      apiKey: account.apiKey,
      token: pilot.token,
    });
    expect(flight.json.data.buffer).toBe(40);
    // Its live page and briefing open with the ticket in their links, for this pilot's flight.
    for (const [id, heading] of [
      ["live-link", flightId],
      ["briefing-link", "<h1>Flight briefing</h1>"],
    ] as const) {
      const href = linkHref(res.text, id);
      expect(href).toContain(`/flight/v2/${encodeURIComponent(flightId)}/`);
      expect(href).toContain("ticket=v1.");
      const opened = await SELF.fetch(href);
      const text = await opened.text();
      expect(opened.status, text.slice(0, 400)).toBe(200);
      expect(text).toContain(heading);
    }
    expect(Date.parse(flight.json.data.end_time) - Date.parse(flight.json.data.start_time)).toBe(30 * 60_000);
  });

  it("ends the result page's links once the application's keys are all revoked", async () => {
    const partner = await createAccount("revoked page partner");
    const pilot = await tokenFor(partner, "revoked-page-pilot");
    const built = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: partner.apiKey,
      token: pilot.token,
      body: { geometry: { type: "Point", coordinates: [-84.3, 36.6] }, buffer: 40 },
    });
    const creation = new URL(new URL(built.json.data.link).searchParams.get("link")!);
    const created = await post(`${creation.pathname}${creation.search}&units=metric`, {
      altitude: "30",
      buffer: "40",
      start: "15",
      duration: "30",
      action: "create",
    });
    expect(created.status, created.text.slice(0, 400)).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(Date.now(), partner.keyId)
      .run();
    const live = await SELF.fetch(linkHref(created.text, "live-link"));
    expect(live.status).toBe(401);
    expect(await live.text()).toContain("revoked");
  });

  it("re-renders with the pilot's choices and no flight on Update airspace", async () => {
    const path = await creationPath({ geometry: { type: "Point", coordinates: [-84.3, 36.6] } });
    const res = await post(`${path}&units=imperial`, {
      altitude: "121.92",
      buffer: "650",
      start: "60",
      duration: "120",
      action: "preview",
    });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('role="alert"');
    expect(res.text).toMatch(/<option value="121.92" selected="">400 ft<\/option>/);
    expect(res.text).toMatch(/id="buffer"[^>]*value="650"/);
    expect(res.text).toMatch(/<option value="60" selected="">In 1 hour<\/option>/);
  });

  it("never creates a flight for a typed user id: the attack of issue #25 creates nothing", async () => {
    const victim = await tokenFor(account, "victim-pilot");
    const path = await creationPath({ geometry: { type: "Point", coordinates: [-84.3, 36.6] }, buffer: 40 });
    const fields = {
      user_id: "victim-pilot",
      altitude: "30",
      buffer: "40",
      start: "0",
      duration: "30",
      action: "create",
    };
    for (let i = 0; i < 3; i++) {
      const res = await post(`${path}&units=metric`, fields);
      expect(res.status).toBe(400);
      expect(res.text).toContain("has not set up pilot sign-in");
    }
    // Nor does a made-up or another account's grant.
    const other = await createAccount("other partner");
    const otherPilot = await tokenFor(other, "victim-pilot");
    const otherLink = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: other.apiKey,
      token: otherPilot.token,
      body: { geometry: square },
    });
    const otherGrant = new URL(new URL(otherLink.json.data.link).searchParams.get("link")!).searchParams.get(
      "grant",
    )!;
    expect(otherGrant).toMatch(/^wsg_/);
    for (const grant of ["wsg_madeup", otherGrant]) {
      const res = await post(`${path}&units=metric&grant=${grant}`, fields);
      expect(res.status).toBe(400);
      expect(res.text).toContain("used or has expired");
    }
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM flights WHERE pilot_id = ?")
      .bind(victim.pilotId)
      .first<{ n: number }>();
    expect(count!.n).toBe(0);
  });
});

describe("links the page can open", () => {
  /** A regular polygon of `n` positions, 500 m across, in Los Angeles. */
  function polygonOf(n: number) {
    const ring = Array.from({ length: n }, (_, i) => {
      const a = (2 * Math.PI * i) / n;
      return [-118.475 + 0.0025 * Math.cos(a), 34.015 + 0.0025 * Math.sin(a)];
    });
    return { type: "Polygon", coordinates: [[...ring, ring[0]]] };
  }

  it("refuses a geometry whose link would be over the front's URL limit: 413 naming geometry", async () => {
    // Issue #27: a 10,000-position area gave a 320 KB link that the page always refused with 414.
    for (const n of [9_999, 1_000]) {
      const res = await call("/deeplink/v1/create_flight", {
        method: "POST",
        apiKey: account.apiKey,
        body: { geometry: polygonOf(n) },
      });
      expect(res.status, res.text).toBe(413);
      expect(res.json.status).toBe("fail");
      expect(res.json.data.errors[0].name).toBe("geometry");
      expect(res.json.data.errors[0].message).toMatch(/over the 16384/);
    }
  });

  it("builds links up to the limit, and the page opens the largest", async () => {
    let largest: string | undefined;
    for (const n of [20, 100, 150, 200]) {
      const res = await call("/deeplink/v1/create_flight", {
        method: "POST",
        apiKey: account.apiKey,
        body: { geometry: polygonOf(n) },
      });
      if (res.status !== 200) break;
      largest = res.json.data.link as string;
      expect(largest.length).toBeLessThanOrEqual(MAX_LINK_BYTES);
    }
    expect(largest).toBeDefined();
    const creation = new URL(new URL(largest!).searchParams.get("link")!);
    expect(creation.href.length).toBeLessThanOrEqual(MAX_LINK_BYTES);
    const page = await SELF.fetch(`${BASE}${creation.pathname}${creation.search}`);
    expect(page.status).toBe(200);
    await page.body?.cancel();
  });
});
