import type { Destination, Platform } from "../domain/deeplink/outerLink";

/**
 * The page between an outer link without `efr=1` and where it leads: the same choices the redirect
 * would make, as plain links (no script), the platform's own first.
 */
export function renderOpenLink(where: Destination, platform: Platform): string {
  const device = platform === "android" ? "Android" : platform === "ios" ? "iPhone or iPad" : "computer";
  const links = where.choices
    .map(
      (choice, i) =>
        `<li><a class="${i === 0 ? "primary" : ""}" href="${esc(choice.href)}">${esc(choice.label)}</a></li>`,
    )
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>Create a flight</title><style>
:root{color-scheme:light dark}body{margin:0;font:16px/1.5 system-ui,sans-serif;display:grid;place-items:center;min-height:100vh}
main{max-width:26rem;padding:1.5rem}h1{font-size:1.3rem}ul{list-style:none;padding:0;display:grid;gap:.6rem}
a{display:block;padding:.7rem 1rem;border-radius:.5rem;border:1px solid #8886;text-decoration:none;text-align:center}
a.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}</style></head><body><main>
<h1>Create a flight</h1><p>A partner app asks you to plan a flight. On this ${device}:</p><ul id="choices">${links}</ul></main></body></html>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
