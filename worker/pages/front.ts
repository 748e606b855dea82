import type { Component } from "../domain/systemStatus";

/**
 * The front page (`/`): what this service is, who runs it, how it is now, where the reference and
 * the airspace map are, and the public flights under way. No scripts, no external assets.
 */

export interface FrontPageModel {
  operator: string;
  status: { level: string; components: Component[] };
  flights: {
    latitude: number;
    longitude: number;
    maxAltitude: number;
    startTime: number;
    endTime: number;
    city: string | null;
    state: string | null;
    country: string | null;
  }[];
}

const LEVEL_WORDS: Record<string, string> = {
  normal: "working normally",
  unknown: "partly unknown",
  maintenance: "under maintenance",
  degraded: "degraded",
  failed: "failing",
};

export function renderFrontPage(m: FrontPageModel): string {
  const components = m.status.components
    .map((c) => `<li class="${esc(c.level)}">${esc(c.name)}: ${esc(LEVEL_WORDS[c.level] ?? c.level)}</li>`)
    .join("");
  const flights =
    m.flights.length === 0
      ? `<p id="no-flights">No public flight is under way right now.</p>`
      : `<table id="flights"><thead><tr><th>Where</th><th>When (UTC)</th><th>Up to</th><th></th></tr></thead><tbody>${m.flights
          .map((f) => {
            const place = [f.city, f.state, f.country].filter(Boolean).join(", ");
            const where = place || `${f.latitude.toFixed(3)}, ${f.longitude.toFixed(3)}`;
            const map = `/map?latitude=${f.latitude.toFixed(5)}&amp;longitude=${f.longitude.toFixed(5)}&amp;span_km=2`;
            return `<tr><td>${esc(where)}</td><td>${hhmm(f.startTime)}–${hhmm(f.endTime)}</td><td>${f.maxAltitude > 0 ? `${Math.round(f.maxAltitude)} m above ground` : "no ceiling"}</td><td><a href="${map}">on the map</a></td></tr>`;
          })
          .join("")}</tbody></table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Windsock · ${esc(m.operator)}</title><style>
:root{color-scheme:light dark;--muted:#5b6470;--card:#fff;--bg:#f6f7f9}
@media (prefers-color-scheme:dark){:root{--muted:#9aa4b2;--card:#181c22;--bg:#0f1216}}
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:var(--bg)}main{max-width:48rem;margin:0 auto;padding:1rem 1.2rem 2rem}
h1{font-size:1.6rem;margin:.6rem 0 0}.operator{color:var(--muted);margin:0 0 1rem}
section{background:var(--card);border-radius:.6rem;padding:.6rem 1rem;margin:.8rem 0;box-shadow:0 1px 2px #0002}h2{font-size:1.1rem;margin:.2rem 0 .4rem}
.links{display:flex;flex-wrap:wrap;gap:.6rem;padding:0;list-style:none}.links a{display:block;padding:.5rem .9rem;border-radius:.4rem;border:1px solid #8886;text-decoration:none}
.links a.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}
.normal{color:#1a7f37}.degraded,.unknown,.maintenance{color:#9a6700}.failed{color:#b42318}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25rem .4rem;border-bottom:1px solid #8883}</style></head><body><main>
<h1>Windsock</h1><p class="operator">Run by <strong id="operator">${esc(m.operator)}</strong></p>
<p>A service for drone flights: pilots plan a flight, learn which rules and airspace advisories apply
there and whether they are authorized, look up the ground's height, fly, and stream their telemetry,
which the service checks against the plan as it comes. Apps talk to it over an HTTP API.</p>
<ul class="links"><li><a class="primary" href="/map">Airspace map</a></li><li><a href="/docs">API reference</a></li><li><a href="/openapi.json">OpenAPI document</a></li></ul>
<section aria-labelledby="status-h"><h2 id="status-h">Status: <span id="status" class="${esc(m.status.level)}">${esc(LEVEL_WORDS[m.status.level] ?? m.status.level)}</span></h2><ul id="components">${components}</ul></section>
<section aria-labelledby="flights-h"><h2 id="flights-h">Public flights under way</h2>${flights}
<p class="operator">Only flights their pilots made public are listed; their live pages open from the pilot's app.</p></section>
</main></body></html>`;
}

function hhmm(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
