import { readFileSync } from "node:fs";
import { afterAll, describe, expect, inject, it } from "vitest";
import { type Browser, browserAvailable, launch } from "./chromium";

/**
 * Issue 37, item 6 (login CSRF): an attacker starts the deep-link page's sign-in, signs in at the
 * provider and hands the `signed_in?code=…&state=…` URL to a victim. Two browsers (two profiles):
 * the victim's gets an error page and no grant; the attacker's own URL, in the attacker's browser,
 * still signs in.
 */

const service = inject("service");
const DESKTOP = { width: 1280, height: 900, mobile: false };
const browsers: Browser[] = [];

/** The development pilot of npm start's OpenID provider, from the env file it wrote. */
function developmentPilot() {
  const text = readFileSync(service.envFile, "utf8");
  const value = (name: string) => new RegExp(`^export ${name}=(.*)$`, "m").exec(text)![1]!;
  return { username: value("WINDSOCK_PILOT_USERNAME"), password: value("WINDSOCK_PILOT_PASSWORD") };
}

async function creationLink(): Promise<string> {
  const res = await fetch(`${service.baseUrl}/deeplink/v1/create_flight`, {
    method: "POST",
    headers: { "x-api-key": service.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ geometry: { type: "Point", coordinates: [-86.68, 36.12] }, buffer: 100 }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { link: string } };
  return new URL(body.data.link).searchParams.get("link")!;
}

afterAll(async () => {
  for (const browser of browsers) await browser.close();
});

describe.skipIf(!browserAvailable())("page sign-in bound to its browser", () => {
  it("a signed_in URL from another browser signs nobody in; in its own browser it does", async () => {
    const attacker = await launch(DESKTOP);
    const victim = await launch(DESKTOP);
    browsers.push(attacker, victim);
    const pilot = developmentPilot();

    // The attacker signs in at the provider, and keeps the provider's answer instead of following it:
    // the login form's post is followed by hand up to the redirect to signed_in (a route sees only the
    // first request of a redirect chain).
    const attackerPage = await attacker.context.newPage();
    let handedOver: string | undefined;
    await attackerPage.route("**/login", async (route) => {
      let url = route.request().url();
      let response = await route.fetch({ maxRedirects: 0 });
      for (let location = response.headers().location; location; location = response.headers().location) {
        url = new URL(location, url).href;
        if (url.includes("/create_flight/v1/signed_in")) {
          handedOver = url;
          return route.fulfill({ status: 200, contentType: "text/html", body: "<p>kept</p>" });
        }
        response = await attackerPage.request.get(url, { maxRedirects: 0 });
      }
      return route.fulfill({ response });
    });
    await attackerPage.goto(await creationLink());
    await attackerPage.getByRole("link", { name: "Sign in to create the flight" }).click();
    await attackerPage.locator('input[name="username"]').fill(pilot.username);
    await attackerPage.locator('input[name="password"]').fill(pilot.password);
    await attackerPage.getByRole("button", { name: "Sign in" }).click();
    await attackerPage.getByText("kept").waitFor();
    expect(handedOver).toMatch(/\/create_flight\/v1\/signed_in\?.*code=/);

    // The victim opens it: an error page, no grant, no form to create a flight.
    const victimPage = await victim.context.newPage();
    const answer = await victimPage.goto(handedOver!);
    expect(answer!.status()).toBe(400);
    expect(await victimPage.getByRole("alert").textContent()).toContain("started in another browser");
    expect(victimPage.url()).not.toContain("grant=");
    expect(await victimPage.getByRole("button", { name: "Create flight" }).count()).toBe(0);

    // A sign-in the attacker's browser finishes itself works as before.
    await attackerPage.unroute("**/login");
    await attackerPage.goto(await creationLink());
    await attackerPage.getByRole("link", { name: "Sign in to create the flight" }).click();
    // The provider remembers the pilot's session, or asks again.
    if (await attackerPage.locator('input[name="username"]').count()) {
      await attackerPage.locator('input[name="username"]').fill(pilot.username);
      await attackerPage.locator('input[name="password"]').fill(pilot.password);
      await attackerPage.getByRole("button", { name: "Sign in" }).click();
    }
    await attackerPage.waitForURL(/\/create_flight\/v1\/\?.*grant=wsg_/);
    expect(await attackerPage.locator("#sign_in").textContent()).toContain("You are signed in");
  });
});
