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
    await page.locator(".opblock").first().waitFor({ timeout: 120_000 });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("lists the operations with their schemas, from this worker alone", async () => {
    const paths = await page.locator(".opblock-summary-path").allInnerTexts();
    const normalized = paths.map((p) => p.replace(/\u200b/g, "").trim());
    for (const expected of [
      "/auth/v1/anonymous/token",
      "/flight/v2/plan",
      "/flight/v2/{flight_id}",
      "/health",
    ])
      expect(normalized).toContain(expected);
    // The description is Markdown rendered as such: code, not backticks; the datagram table is a table.
    const info = page.locator(".information-container");
    await expect(info.locator("code").first().isVisible()).resolves.toBe(true);
    expect(await info.innerText()).not.toContain("`");
    expect(await info.locator("table").count()).toBeGreaterThanOrEqual(2);

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
    expect(errors).toEqual([]);
  });
});
