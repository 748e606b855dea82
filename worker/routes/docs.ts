import type { OpenAPIHono } from "@hono/zod-openapi";
import { datagramLayoutMarkdown } from "../../proto/datagram";
import type { AppEnv } from "../env";
import { keepProducibleFailures } from "../lib/openapiFailures";
// Swagger UI's prebuilt bundle and style sheet come from this host too (no CDN, works offline), as
// static assets (wrangler.toml [assets], tools/lib/staticAssets.ts), not through the worker.
import { DOCS_ASSETS } from "./docsAssets";

/** Where a newcomer starts: the key, a pilot's token, a first call; the rest is in the operations. */
const GETTING_STARTED = `**Getting started**

1. **Key.** Every call carries the application's API key in \`X-API-Key\`. \`npm start\` prints one
   (and writes it to \`.windsock/env\`); an operator mints more with \`npm run keys:create -- --name <label>\`.
2. **Token.** Calls for a pilot also carry \`Authorization: Bearer <id_token>\`: \`POST /auth/v1/anonymous/token\`
   with \`{"user_id": "pilot-1"}\` answers one (its \`sub\` is the pilot id).
3. **First call.** Press **Authorize**, enter the key under *ApiKey* (and a token under *Bearer*), then
   *Try it out* on \`GET /elevation/v1/ele\`: the ground on Cross Mountain, Tennessee, and in Gothenburg.

Answers are [JSend](https://github.com/omniti-labs/jsend): \`{"status":"success","data":…}\` with 200, or
\`{"status":"fail","data":{"code","message","errors":[{"name","message"}]}}\` with the HTTP status; each
operation lists the failures it can answer. The UDP datagrams of live telemetry are laid out under **Telemetry**.`;

const DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Windsock API",
    version: "1.0.0",
    description: GETTING_STARTED,
  },
  // A newcomer's order; the byte tables of the UDP datagrams sit with the telemetry operations.
  tags: [
    { name: "Auth", description: "API keys, pilot tokens and the SDKs' sign-in routes" },
    { name: "Elevation", description: "Ground height (EGM96) from the service's own tiles" },
    { name: "Rules and advisories", description: "Rulesets, airspace advisories and status for an area" },
    { name: "Flight plans", description: "Plan, brief and submit a flight" },
    { name: "Flights" },
    { name: "Telemetry", description: datagramLayoutMarkdown },
    { name: "Live" },
    { name: "Pilots" },
    { name: "Aircraft" },
    { name: "Airspace" },
    { name: "Deep link" },
    { name: "Service" },
    {
      name: "InterUSS",
      description: "The standards' interfaces, for USS and test harnesses (InterussBearer)",
    },
    { name: "Remote ID" },
    { name: "Development" },
  ],
};

/** The pilot's schemes first in the Authorize dialog: the standards' bearer is for other USSs. */
const SCHEME_ORDER = ["ApiKey", "Bearer"];

/** `/openapi.json` from the same zod schemas that validate requests, and `/docs` (Swagger UI) reading it. */
export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "The application's API key (`npm run keys:create`, or the key `npm start` prints)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A pilot's `id_token` from `POST /auth/v1/anonymous/token`",
  });
  // The routes never change within an isolate: build the document (about 0.8 s of CPU in a fresh
  // isolate), its digest and the page once. The page does not wait for the document: the browser
  // fetches it while it parses Swagger UI.
  let doc: { json: string; etag: string } | undefined;
  const document = async () => {
    if (!doc) {
      const built = app.getOpenAPI31Document(DOCUMENT);
      const schemes = built.components?.securitySchemes;
      if (schemes && built.components) {
        const names = [...SCHEME_ORDER, ...Object.keys(schemes).filter((n) => !SCHEME_ORDER.includes(n))];
        built.components.securitySchemes = Object.fromEntries(names.map((n) => [n, schemes[n]!]));
      }
      keepProducibleFailures(built.paths as Record<string, Record<string, unknown>>);
      const json = JSON.stringify(built);
      doc = { json, etag: await digestTag(json) };
    }
    return doc;
  };
  let page: { html: string; etag: string } | undefined;
  const docsHtml = async () => {
    if (!page) {
      const html = docsPage(DOCUMENT.info.title, registeredOperations(app));
      page = { html, etag: await digestTag(html) };
    }
    return page;
  };
  app.get("/openapi.json", async (c) => {
    const { json, etag } = await document();
    return c.body(json, 200, { "Content-Type": "application/json", ETag: etag });
  });
  app.get("/docs", async (c) => {
    const { html, etag } = await docsHtml();
    return c.html(html, 200, { ETag: etag });
  });
  // Browsers ask for it on every page: an icon, not a 401.
  app.get("/favicon.ico", (c) => c.body(ICON, 200, { "Content-Type": "image/svg+xml" }));
}

/** A strong ETag: the text's SHA-1, computed once per isolate instead of on every answer. */
async function digestTag(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text)));
  return `"${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

interface Operation {
  method: string;
  path: string;
  summary: string;
}

/** The operations as registered (cheap: no schema is walked), for the page without scripts. */
function registeredOperations(app: OpenAPIHono<AppEnv>): Operation[] {
  const operations: Operation[] = [];
  for (const definition of app.openAPIRegistry.definitions)
    if (definition.type === "route")
      operations.push({
        method: definition.route.method,
        path: definition.route.path,
        summary: definition.route.summary ?? "",
      });
  return operations;
}

/** A windsock on a pole. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M5 3v27" stroke="#334" stroke-width="2"/><path d="M6 5l22 4v6L6 19z" fill="#e8590c"/><path d="M13 6.3v11.4M20 7.6v8.8" stroke="#fff" stroke-width="2.5"/></svg>`;

/**
 * Swagger UI over `/openapi.json`: resolved schemas, examples, and "Try it out" with the key entered
 * under Authorize (kept across reloads). A plain list of the operations stands in without scripts.
 * The Telemetry tag's long description (the datagram tables) goes below its title, not beside it.
 */
function docsPage(title: string, operations: Operation[]): string {
  const items = operations.map(
    (op) =>
      `<li><b>${op.method.toUpperCase()}</b> <code>${escapeHtml(op.path)}</code> ${escapeHtml(op.summary)}</li>`,
  );
  const config = {
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    // Tags folded: the first screen (getting started, Authorize, the tags) renders without the
    // hundred-odd operations, which Swagger UI then builds only for the tag a reader opens.
    docExpansion: "none",
    persistAuthorization: true,
    displayRequestDuration: true,
    filter: true,
    // The default validator is an external service; the page talks to nothing but this worker.
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 3,
    syntaxHighlight: { activated: true, theme: "agate" },
  };
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="preload" href="/openapi.json" as="fetch" crossorigin="anonymous">
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui.css">
<style>body{margin:0}.swagger-ui .info{margin:24px 0}
.swagger-ui .opblock-tag[data-tag="Telemetry"]{flex-wrap:wrap}
.swagger-ui .opblock-tag[data-tag="Telemetry"] small{order:3;flex-basis:100%;padding:0 10px}</style>
</head><body>
<div id="swagger-ui"><noscript><h1>${escapeHtml(title)}</h1>
<p>This reference needs JavaScript. The document itself: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<ul>${items.join("\n")}</ul></noscript></div>
<script src="${DOCS_ASSETS}/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, {
  presets: [SwaggerUIBundle.presets.apis], layout: "BaseLayout", onComplete: authorizeAtTheKey }));
// Swagger UI focuses the last scheme's field when Authorize opens: open it at the first, the API key.
function authorizeAtTheKey() {
  new MutationObserver(function () {
    var modal = document.querySelector(".modal-ux-content");
    if (!modal || modal.dataset.opened) return;
    modal.dataset.opened = "1";
    requestAnimationFrame(function () { modal.scrollTop = 0; var key = modal.querySelector("input"); if (key) key.focus(); });
  }).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
}</script>
</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
