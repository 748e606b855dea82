import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Browser, browserAvailable, launch } from "./chromium";
import { differingShare, readmeScreenshot } from "./pixels";
import { ARTIFACTS, startCallbackReceiver } from "./service";

const PHONE = { width: 390, height: 844, mobile: true };
const DESKTOP = { width: 1280, height: 900, mobile: false };
const AUTHORIZATION_STATUSES = ["pending", "accepted", "rejected", "not_requested", "cancelled"];

/**
 * West of Nashville's runways (KBNA): inside its real Class C surface area (the FAA's shelves), where
 * the generated facility map's ceiling is 200 ft on this cell and all its neighbours.
 */
const NEAR_KBNA = {
  type: "Polygon",
  coordinates: [
    [
      [-86.7317, 36.1022],
      [-86.7267, 36.1022],
      [-86.7267, 36.1062],
      [-86.7317, 36.1062],
      [-86.7317, 36.1022],
    ],
  ],
};

const service = inject("service");
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
const browsers: Browser[] = [];

async function api(pathname: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = { "x-api-key": service.apiKey };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(`${service.baseUrl}${pathname}`, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

/** A pilot's token from the partner app's own sign-in (anonymous tokens: the app keeps its users). */
async function pilotToken(userId: string): Promise<string> {
  const token = await api("/auth/v1/anonymous/token", { method: "POST", body: { user_id: userId } });
  return token.json.data.id_token;
}

/**
 * The creation link inside the dynamic link the builder returns; built with the pilot's token it
 * carries that pilot's single-use sign-in, without one the page can create nothing.
 */
async function creationLink(body: Record<string, unknown>, signedInAs?: string): Promise<string> {
  const token = signedInAs ? await pilotToken(signedInAs) : undefined;
  const res = await api("/deeplink/v1/create_flight", { method: "POST", body, ...(token ? { token } : {}) });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return new URL(res.json.data.link).searchParams.get("link")!;
}

async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Every control has a label and nothing is wider than the screen. */
async function expectUsable(page: Page) {
  const unlabeled = await page.$$eval("input, select", (elements) =>
    elements.filter((e) => ((e as HTMLInputElement).labels?.length ?? 0) === 0).map((e) => e.outerHTML),
  );
  expect(unlabeled).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

/** In every pick1 group that has no choice yet, picks the first ruleset with the keyboard. */
async function choosePick1(page: Page) {
  const groups = await page.$$eval('input[type="radio"][name^="pick1-"]', (radios) => [
    ...new Set(radios.map((r) => (r as HTMLInputElement).name)),
  ]);
  for (const name of groups) {
    if ((await page.locator(`input[name="${name}"]:checked`).count()) > 0) continue;
    await page.locator(`input[name="${name}"]`).first().focus();
    await page.keyboard.press("Space");
  }
}

/** The flight as the partner app reads it with its own key and the pilot's token. */
async function flightOf(userId: string, flightId: string) {
  const token = await api("/auth/v1/anonymous/token", { method: "POST", body: { user_id: userId } });
  return api(`/flight/v2/${encodeURIComponent(flightId)}`, { token: token.json.data.id_token });
}

async function flightPlanOf(userId: string, planId: string) {
  const token = await api("/auth/v1/anonymous/token", { method: "POST", body: { user_id: userId } });
  const plan = await api(`/flight/v2/plan/${encodeURIComponent(planId)}`, {
    token: token.json.data.id_token,
  });
  expect(plan.status).toBe(200);
  return plan.json.data;
}

/** The result page's live and briefing links open those pages for this pilot (the ticket in the link). */
async function followPageLinks(browser: Browser, page: Page) {
  const flightId = (await page.locator("#flight-id").textContent())!;
  for (const [name, heading] of [
    ["Watch the flight live", undefined],
    ["Read the flight's briefing", "Flight briefing"],
  ] as const) {
    const href = (await page.getByRole("link", { name }).getAttribute("href"))!;
    expect(href).toContain(`/flight/v2/${encodeURIComponent(flightId)}/`);
    const opened = await browser.context.newPage();
    const response = await opened.goto(href);
    expect(response!.status(), name).toBe(200);
    if (heading) expect(await opened.getByRole("heading", { level: 1 }).textContent()).toBe(heading);
    else expect(await opened.locator("body").textContent()).toContain(flightId);
    await opened.close();
  }
}

function expectCallback(url: URL) {
  expect(`${url.origin}${url.pathname}`).toBe(receiver.url);
  const flightId = url.searchParams.get("flight_id")!;
  expect(flightId).toMatch(/^flight\|/);
  const authorizations = JSON.parse(url.searchParams.get("authorizations")!);
  expect(Array.isArray(authorizations)).toBe(true);
  for (const a of authorizations) {
    expect(typeof a.description).toBe("string");
    expect(typeof a.message).toBe("string");
    expect(AUTHORIZATION_STATUSES).toContain(a.status);
    expect(typeof a.authority.id).toBe("string");
    expect(typeof a.authority.name).toBe("string");
  }
  return { flightId, authorizations };
}

describe.skipIf(!browserAvailable())("deep link in Chromium", () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    receiver = await startCallbackReceiver();
    const added = await api("/deeplink/v1/callbacks", { method: "POST", body: { url: receiver.url } });
    expect(added.status).toBe(200);
  }, 600_000);

  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await receiver?.close();
  });

  it("refuses a link whose callback was changed to one not registered", async () => {
    const phone = await launch(PHONE);
    browsers.push(phone);
    const link = await creationLink({ geometry: NEAR_KBNA, callback_url: receiver.url });
    const tampered = link.replace(
      encodeURIComponent(receiver.url),
      encodeURIComponent("https://evil.example/steal"),
    );
    const page = await phone.context.newPage();
    const response = await page.goto(tampered);
    expect(response!.status()).toBe(400);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
      "This flight link cannot be used",
    );
    expect(await page.getByRole("alert").textContent()).toContain("callback_url");
    expect(await page.locator("form").count()).toBe(0);
    await screenshot(page, "phone-link-refused");
    expect(phone.external).toEqual([]);
  });

  it("on a phone: without a sign-in offers the provider's; signed in by the link, creates the flight and calls back", async () => {
    const phone = await launch(PHONE);
    browsers.push(phone);
    const fields = { geometry: NEAR_KBNA, callback_url: `${receiver.url}?state=phone`, altitude: 60 };
    const page = await phone.context.newPage();
    // A link built without the pilot's token: npm start's application trusts the development provider.
    await page.goto(await creationLink(fields));
    expect(await page.getByRole("link", { name: "Sign in to create the flight" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Create flight" }).count()).toBe(0);
    expect(await page.locator("#user_id").count()).toBe(0);
    await screenshot(page, "phone-no-sign-in");

    await page.goto(await creationLink(fields, "phone-pilot"));
    expect(await page.title()).toContain("Create a flight");
    expect(await page.locator("#sign_in").textContent()).toContain("You are signed in");
    expect(await page.locator("svg.map path").count()).toBeGreaterThan(0);
    // The (real) Class C advisory is drawn and listed, and the area is orange: authorization required.
    expect(await page.locator("svg.map circle").count()).toBeGreaterThan(0);
    expect(await page.locator("ul.advisories").textContent()).toContain("NASHVILLE CLASS C");
    // Its LAANC ceilings come from the generated facility map: marked beside it, and explained.
    expect(await page.locator("ul.advisories .badge.synthetic").first().isVisible()).toBe(true);
    expect(await page.locator("#synthetic-meaning").textContent()).toContain("Synthetic data: generated");
    expect(await page.locator("#advisory-color").textContent()).toContain("authorization required");
    // Rulesets: the required ones fixed, one pick1 per jurisdiction.
    expect(await page.locator("#rulesets input[disabled]:checked").count()).toBeGreaterThan(0);
    expect(await page.locator('#rulesets input[type="radio"]').count()).toBeGreaterThan(1);
    // 60 m is shown in feet for an en-US pilot, snapped to the 200 ft preset.
    expect(await page.locator("#altitude option:checked").textContent()).toBe("200 ft");
    await expectUsable(page);
    await screenshot(page, "phone-form");

    // Keyboard only: choose, then submit from the button with Enter.
    await choosePick1(page);
    await page.getByRole("button", { name: "Create flight" }).focus();
    await Promise.all([page.waitForURL(/\/create_flight\/v1\//), page.keyboard.press("Enter")]);
    await page.waitForSelector("h1:text('Flight created')");
    // The result page: who asked (the account's name), each authorization in words, what to do next.
    expect(await page.locator("body").textContent()).toContain("Requested by Sample Partner App");
    expect(await page.locator("#verdict").textContent()).toContain("Authorized");
    expect(await page.locator("ul.authorizations li.accepted .status").textContent()).toBe(
      "Accepted by FAA LAANC",
    );
    expect(await page.locator("ul.authorizations li.accepted .todo").textContent()).toContain(
      "You may fly as planned",
    );
    await expectUsable(page);
    await screenshot(page, "phone-result");
    const back = await page.getByRole("link", { name: "Return to Sample Partner App" }).getAttribute("href");
    expect(back).toContain(`${receiver.url}?state=phone&flight_id=`);
    await followPageLinks(phone, page);
    // Back to the app by itself (the contract's redirect, after the pilot has read the result).
    await page.waitForURL(`${receiver.url}**`, { timeout: 30_000 });
    await screenshot(page, "phone-callback");

    const callback = receiver.received.at(-1)!;
    expect(callback.searchParams.get("state")).toBe("phone");
    const { flightId, authorizations } = expectCallback(callback);
    // At the 200 ft ceiling LAANC authorizes at once.
    expect(authorizations).toEqual([
      expect.objectContaining({
        status: "accepted",
        authority: expect.objectContaining({ id: "faa-laanc" }),
      }),
    ]);
    const flight = await flightOf("phone-pilot", flightId);
    expect(flight.status).toBe(200);
    expect(flight.json.data.max_altitude).toBeCloseTo(60.96, 2);
    expect(flight.json.data.authorizations).toEqual(authorizations);
    expect(phone.external).toEqual([]);
  });

  it("opens spec 4.7's plain link (no client_id) for the service's own application", async () => {
    const phone = await launch(PHONE);
    browsers.push(phone);
    const plain = `${service.baseUrl}/create_flight/v1/?geometry=${encodeURIComponent(JSON.stringify({ geometry: NEAR_KBNA }))}&altitude=60`;
    const page = await phone.context.newPage();
    const response = await page.goto(plain);
    expect(response!.status()).toBe(200);
    expect(await page.locator("body").textContent()).toContain("Requested by Windsock");
    // A typed user id signs nobody in: without a sign-in the page creates nothing.
    expect(await page.locator("#user_id").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Create flight" }).count()).toBe(0);
    expect(await page.locator("#sign_in").textContent()).toContain("npm run pilots:provider");
    await screenshot(page, "phone-plain-link");

    // Its callback is honoured only once the operator allows it for the first-party application.
    const refused = await page.goto(`${plain}&callback_url=${encodeURIComponent(receiver.url)}`);
    expect(refused!.status()).toBe(400);
    expect(await page.getByRole("alert").textContent()).toContain("--account app_windsock");
    expect(await page.locator("form").count()).toBe(0);
    expect(phone.external).toEqual([]);
  });

  it("on a desktop: a Point with its buffer, switched to meters, becomes a flight", async () => {
    const desktop = await launch(DESKTOP);
    browsers.push(desktop);
    const point = { type: "Point", coordinates: [-86.72917, 36.10417] };
    const link = await creationLink(
      {
        geometry: point,
        buffer: 30.48,
        callback_url: receiver.url,
        ruleset_ids: ["usa_sec_44809"],
      },
      "desk-pilot",
    );
    const page = await desktop.context.newPage();
    await page.goto(link);
    // ruleset_ids preselects the recreational pick1 instead of the default Part 107.
    expect(await page.isChecked('input[type="radio"][value="usa_sec_44809"]')).toBe(true);
    expect(await page.isChecked('input[type="radio"][value="usa_part_107"]')).toBe(false);
    expect(await page.inputValue("#buffer")).toBe("100");
    expect(await page.locator('label[for="buffer"]').textContent()).toContain("(ft)");
    await page.getByRole("link", { name: "Show in meters" }).click();
    await page.waitForURL(/units=metric/);
    expect(await page.inputValue("#buffer")).toBe("30");
    await expectUsable(page);
    await screenshot(page, "desktop-form");

    await page.fill("#buffer", "0");
    await page.getByRole("button", { name: "Create flight" }).click();
    await page.waitForSelector("#error-summary");
    expect(await page.locator("#buffer-error").textContent()).toContain("greater than 0");
    await screenshot(page, "desktop-errors");

    await page.fill("#buffer", "50");
    await page.selectOption("#altitude", { label: "100 m" });
    expect(await page.isChecked('input[type="radio"][value="usa_sec_44809"]')).toBe(true);
    await page.getByRole("button", { name: "Create flight" }).click();
    await page.waitForSelector("h1:text('Flight created')");
    // Above the ceiling: not authorized, said in words with what to do about it.
    expect(await page.locator("#verdict").textContent()).toContain("Not");
    const first = page.locator("ul.authorizations li").first();
    expect(await first.locator(".status").textContent()).toMatch(
      /^(Pending: waiting for|Rejected by|Not requested from) FAA LAANC$/,
    );
    expect(await first.locator(".todo").textContent()).toMatch(/^What to do: .*fly/);
    await screenshot(page, "desktop-result");
    await Promise.all([
      page.waitForURL(`${receiver.url}**`),
      page.getByRole("link", { name: "Return to Sample Partner App" }).click(),
    ]);
    await screenshot(page, "desktop-callback");

    // 100 m is above the 200 ft ceiling: LAANC does not authorize it automatically.
    const { flightId, authorizations } = expectCallback(receiver.received.at(-1)!);
    expect(authorizations.length).toBeGreaterThan(0);
    expect(authorizations[0].status).not.toBe("accepted");
    const flight = await flightOf("desk-pilot", flightId);
    expect(flight.status).toBe(200);
    const plan = await flightPlanOf("desk-pilot", flight.json.data.flight_plan_id);
    expect(plan.rulesets).toContain("usa_sec_44809");
    expect(plan.rulesets).not.toContain("usa_part_107");
    expect(flight.json.data.buffer).toBe(50);
    expect(flight.json.data.max_altitude).toBe(100);
    expect(desktop.external).toEqual([]);
  });
  it("draws the ground over Jacksboro: hillshade and contours from our elevation, with and without scripts", async () => {
    const link = await creationLink({ geometry: { type: "Point", coordinates: [-84.2, 36.3] }, buffer: 300 });
    for (const javaScript of [true, false]) {
      const desktop = await launch(DESKTOP, { javaScript });
      browsers.push(desktop);
      const page = await desktop.context.newPage();
      await page.goto(link);
      const map = page.locator("svg#map");
      expect(await page.locator("#map .terrain .contour").count()).toBeGreaterThanOrEqual(4);
      expect(await page.textContent("#map-legend")).toMatch(/shading and height lines every \d+ ft/);
      // Not a blank pane: most of the map differs from its commonest colour, and the ground is most of it.
      const withGround = await differingShare(page, map);
      console.log(`Jacksboro map: ${(withGround * 100).toFixed(0)}% of pixels differ from the background`);
      expect(withGround).toBeGreaterThan(0.3);
      if (javaScript) {
        await page.addStyleTag({ content: "#map .terrain{display:none}" });
        const without = await differingShare(page, map);
        console.log(`without the ground: ${(without * 100).toFixed(0)}%`);
        expect(withGround - without).toBeGreaterThan(0.15);
        await page.addStyleTag({ content: "#map .terrain{display:inline}" });
        await readmeScreenshot(
          page.locator("section[aria-labelledby=advisories-heading]"),
          "deeplink-jacksboro",
        );
      }
      expect(desktop.external).toEqual([]);
    }
  });

  it("opens the builder's outer link, served by the service, on the creation page on a desktop", async () => {
    const res = await api("/deeplink/v1/create_flight", {
      method: "POST",
      body: { geometry: { type: "Point", coordinates: [-84.2, 36.3] }, buffer: 300 },
    });
    const outer = new URL(res.json.data.link);
    expect(`${outer.origin}${outer.pathname}`).toBe(`${service.baseUrl}/deeplink/v1/open`);
    const desktop = await launch(DESKTOP);
    browsers.push(desktop);
    const page = await desktop.context.newPage();
    await page.goto(outer.href);
    expect(new URL(page.url()).pathname).toBe("/create_flight/v1/");
    expect(await page.title()).toContain("Create a flight");
    // npm start configures no app (wrangler.toml): the link carries none, and phones open the web page.
    expect(["apn", "isi", "ibi"].filter((name) => outer.searchParams.has(name))).toEqual([]);
    for (const userAgent of [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36",
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    ]) {
      const phone = await launch(PHONE, { userAgent });
      browsers.push(phone);
      const phonePage = await phone.context.newPage();
      await phonePage.goto(outer.href);
      expect(new URL(phonePage.url()).pathname).toBe("/create_flight/v1/");
      expect(await phonePage.title()).toContain("Create a flight");
    }
  });
});
