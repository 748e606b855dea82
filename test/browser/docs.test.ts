import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Browser, browserAvailable, launch } from "./chromium";
import { ARTIFACTS } from "./service";

const service = inject("service");
let browser: Browser;
let page: Page;
const failed: string[] = [];
const errors: string[] = [];

describe.skipIf(!browserAvailable())("API reference at /docs in Chromium", () => {
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launch({ width: 1280, height: 900, mobile: false });
    // One page for both tests: parsing Swagger UI's bundle is the slow part on a busy machine.
    page = await browser.context.newPage();
    page.on("response", (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    page.on("pageerror", (err) => errors.push(String(err)));
    await page.goto(`${service.baseUrl}/docs`);
    // Interactive: Authorize can be pressed (how soon is npm run bench -- docs's question).
    await page.locator(".scheme-container button.authorize").waitFor({ timeout: 120_000 });
  });

  /** Opens a tag's section (the tags start folded) and waits for its operations. */
  async function openTag(name: string) {
    const section = page.locator(`.opblock-tag-section:has(h3[data-tag="${name}"])`);
    if (!(await section.getAttribute("class"))?.includes("is-open"))
      await section.locator("h3").first().click();
    await section.locator(".opblock").first().waitFor();
    return section;
  }

  afterAll(async () => {
    await browser?.close();
  });

  it("lists the operations with their schemas, from this worker alone", async () => {
    // Folded at first: the first screen is getting started, Authorize and the tags.
    expect(await page.locator(".opblock-tag-section").count()).toBeGreaterThanOrEqual(10);
    for (const tag of ["Auth", "Flight plans", "Flights", "Service"]) await openTag(tag);
    const paths = await page.locator(".opblock-summary-path").allInnerTexts();
    const normalized = paths.map((p) => p.replace(/\u200b/g, "").trim());
    for (const expected of [
      "/auth/v1/anonymous/token",
      "/flight/v2/plan",
      "/flight/v2/{flight_id}",
      "/health",
    ])
      expect(normalized).toContain(expected);
    // The description is Markdown rendered as such: code, not backticks; no byte tables in it.
    const info = page.locator(".information-container");
    await expect(info.locator("code").first().isVisible()).resolves.toBe(true);
    expect(await info.innerText()).not.toContain("`");
    expect(await info.locator("table").count()).toBe(0);
    // The datagram tables are tables, under the Telemetry operations.
    const telemetry = await openTag("Telemetry");
    expect(await telemetry.locator("table").count()).toBeGreaterThanOrEqual(2);
    await telemetry
      .locator("h3")
      .first()
      .screenshot({ path: path.join(ARTIFACTS, "docs-telemetry-tag.png") });

    // A request body shows its resolved schema, not a bare $ref.
    await page.locator('[id^="operations-"][id$="post_flight_v2_plan"] .opblock-summary').first().click();
    const body = page.locator(".opblock.is-open .opblock-section-request-body");
    await body.waitFor();
    expect(await body.innerText()).not.toContain("$ref");
    await page.screenshot({ path: path.join(ARTIFACTS, "docs.png") });

    expect(browser.external).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("opens on getting started with Authorize above the fold; the pilot's schemes come first", async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const fold = 900;
    const below = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
    const started = (await page.getByText("Getting started", { exact: true }).boundingBox())!;
    expect(started.y + started.height).toBeLessThan(fold);
    for (const step of ["X-API-Key", "/auth/v1/anonymous/token", "GET /elevation/v1/ele"])
      expect(await page.locator(".information-container").innerText()).toContain(step);
    const authorize = await below(".scheme-container button.authorize");
    expect(authorize.y + authorize.height).toBeLessThan(fold);
    // Nothing of the UDP tables in the first screen.
    const tables = await page.locator(".swagger-ui table.markdown, .swagger-ui .markdown table").all();
    for (const table of tables) expect((await table.boundingBox())?.y ?? fold).toBeGreaterThanOrEqual(fold);
    await page.screenshot({ path: path.join(ARTIFACTS, "docs-first-screen.png") });

    await page.locator(".scheme-container button.authorize").click();
    const names = await page.locator(".dialog-ux .modal-ux .auth-container h4").allInnerTexts();
    expect(names[0]).toMatch(/^ApiKey/);
    expect(names[1]).toMatch(/^Bearer/);
    expect(names.at(-1)).toMatch(/^InterussBearer/);
    // It opens at the API key: its field has the focus, inside the dialog's visible part.
    await page.waitForFunction(() => document.activeElement?.id === "api_key_value");
    const [field, dialog] = await Promise.all([
      page.locator("#api_key_value").boundingBox(),
      page.locator(".dialog-ux .modal-ux-content").boundingBox(),
    ]);
    expect(field!.y).toBeGreaterThanOrEqual(dialog!.y);
    expect(field!.y + field!.height).toBeLessThanOrEqual(dialog!.y + dialog!.height);
    await page.locator(".dialog-ux .modal-ux button.close-modal").click();
  });

  it("tries an operation with the API key entered under Authorize", async () => {
    await page
      .getByRole("button", { name: /Authorize/ })
      .first()
      .click();
    const dialog = page.locator(".dialog-ux .modal-ux");
    const apiKey = dialog.locator(".auth-container").filter({ hasText: "X-API-Key" });
    await apiKey.locator("input").fill(service.apiKey);
    await apiKey.getByRole("button", { name: "Apply credentials" }).click();
    await dialog.locator("button.btn-done").first().click();

    await openTag("Aircraft");
    const operation = page.locator('[id$="get_aircraft_v2_manufacturer"]').first();
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.getByRole("button", { name: "Execute" }).click();
    const live = operation.locator(".live-responses-table tbody");
    const status = live.locator("tr.response .response-col_status").first();
    await status.waitFor({ timeout: 60_000 });
    expect((await status.innerText()).trim()).toBe("200");
    expect(await live.innerText()).toContain('"status": "success"');
    await page.screenshot({ path: path.join(ARTIFACTS, "docs-try-it.png") });

    // The getting-started call with its example as it stands: the ground it promises.
    await openTag("Elevation");
    const elevation = page.locator('[id$="get_elevation_v1_ele"]').first();
    await elevation.locator(".opblock-summary").click();
    await elevation.getByRole("button", { name: "Try it out" }).click();
    await elevation.getByRole("button", { name: "Execute" }).click();
    const answer = elevation.locator(".live-responses-table tbody tr.response").first();
    await answer.locator(".response-col_status").waitFor({ timeout: 60_000 });
    expect((await answer.locator(".response-col_status").innerText()).trim()).toBe("200");
    const body = JSON.parse(await answer.locator(".response-col_description pre").first().innerText());
    expect(body).toEqual({ status: "success", data: [1074, 13] });
    expect(errors).toEqual([]);
  });
});
