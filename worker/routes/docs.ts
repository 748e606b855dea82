import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";

const DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Windsock API",
    version: "1.0.0",
    description:
      "Flight plans, flights, pilots, elevation, rules, airspace advisories and telemetry sessions. " +
      "Every response is JSend; send `X-API-Key` on every request and `Authorization: Bearer` for a pilot.",
  },
};

/** `/openapi.json` from the same zod schemas that validate requests, and `/docs` rendered from it. */
export function mountDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer" });
  app.doc31("/openapi.json", DOCUMENT);
  app.get("/docs", (c) => c.html(docsPage(app.getOpenAPI31Document(DOCUMENT))));
}

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

/** A self-contained page (no external assets) listing every operation, its parameters and body. */
function docsPage(doc: Document): string {
  const sections: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {})) {
      if (typeof op !== "object" || op === null || !("responses" in op)) continue;
      const operation = op as {
        summary?: string;
        tags?: string[];
        parameters?: { name: string; in: string; required?: boolean; description?: string }[];
        requestBody?: { content?: Record<string, { schema?: unknown }> };
      };
      const params = (operation.parameters ?? [])
        .map(
          (p) =>
            `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}${p.required ? ", required" : ""})${
              p.description ? ` – ${escapeHtml(p.description)}` : ""
            }</li>`,
        )
        .join("");
      const body = operation.requestBody?.content
        ? `<details><summary>Request body</summary><pre>${escapeHtml(
            JSON.stringify(Object.values(operation.requestBody.content)[0]?.schema, null, 2),
          )}</pre></details>`
        : "";
      sections.push(
        `<section><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>` +
          `<p>${escapeHtml(operation.summary ?? "")}</p>${params ? `<ul>${params}</ul>` : ""}${body}</section>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Windsock API</title><style>
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:auto;padding:1rem;color:#1b1f24}
section{border-top:1px solid #ccd;padding:.5rem 0}h3{margin:.3rem 0;font-size:1.05rem}
.m{display:inline-block;min-width:4.5rem;font-weight:700}.get{color:#0a6}.post{color:#05c}.patch{color:#a60}.delete{color:#c22}
pre{background:#f4f5f7;padding:.5rem;overflow:auto;font-size:.85rem}</style></head><body>
<h1>${escapeHtml(doc.info.title)}</h1><p>${escapeHtml(doc.info.description ?? "")}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>${sections.join("\n")}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
