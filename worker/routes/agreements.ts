import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app";
import { success } from "../lib/jsend";
import { booleanFlag, responses, security, securityWithToken } from "../lib/openapi";
import { requireToken } from "../middleware/token";
import {
  agreementDocument,
  agreementFile,
  agreementStatus,
  agreeTo,
  authorityAgreements,
} from "../services/agreements";

/**
 * The agreements an authority asks pilots to accept, as the Swift SDK calls them
 * (`Source/Core/Clients/AgreementsClient.swift` 31–69, base `/agreements/v2`, Constants.swift 48–50)
 * and its ObjectMapper models read them (`Source/Core/Models/Agreements/`). The operator sets them
 * with `npm run agreements`.
 */

const AgreementSummary = z
  .object({
    id: z.string(),
    version: z.string().openapi({ example: "1.0.0" }),
    type: z
      .string()
      .nullable()
      .openapi({ description: "`TERMS_AND_CONDITIONS`, or null", example: "TERMS_AND_CONDITIONS" }),
    authority_id: z.string().openapi({ example: "faa-laanc" }),
    title: z.string(),
  })
  .openapi("Agreement");

const AgreementDocument = AgreementSummary.extend({
  document: z.object({
    text: z.string(),
    format: z.enum(["markdown", "text"]),
  }),
}).openapi("AgreementDocument");

const AgreementStatus = z
  .object({
    has_agreed_to_latest_version: z.boolean(),
    version: z.string().openapi({ description: "The agreement's current version" }),
    agreed_at: z
      .string()
      .nullable()
      .openapi({ description: "When the pilot agreed to this version (the app's date), or null" }),
  })
  .openapi("AgreementStatus");

const agreementParams = z.object({
  agreement_id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "agreement_id", in: "path" }, example: "laanc-terms" }),
});

const listByAuthority = createRoute({
  method: "get",
  path: "/agreements/v2/authority/{authority_id}",
  tags: ["Agreements"],
  summary: "The agreements an authority asks pilots to accept (the API key is enough)",
  security,
  request: {
    params: z.object({
      authority_id: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "authority_id", in: "path" }, example: "faa-laanc" }),
    }),
  },
  responses: responses(z.array(AgreementSummary), "The authority's agreements (none: an empty list)"),
});

const document = createRoute({
  method: "get",
  path: "/agreements/v2/agreement/{agreement_id}",
  tags: ["Agreements"],
  summary: "An agreement's text, in Markdown with `with_markdown=true` (or 1), plain text otherwise",
  security,
  request: { params: agreementParams, query: z.object({ with_markdown: booleanFlag }) },
  responses: responses(AgreementDocument, "The agreement and its `document.text`"),
});

const pdf = createRoute({
  method: "get",
  path: "/agreements/v2/agreement/{agreement_id}/pdf",
  tags: ["Agreements"],
  summary: "The agreement as a PDF (a pilot's token)",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: agreementParams },
  responses: {
    ...responses(z.null(), ""),
    200: {
      content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } },
      description: "The agreement's title, version and text",
    },
  },
});

const agreed = createRoute({
  method: "get",
  path: "/agreements/v2/agreement/{agreement_id}/agreed",
  tags: ["Agreements"],
  summary: "Whether the pilot has agreed to the agreement's current version",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { params: agreementParams },
  responses: responses(AgreementStatus, "The pilot's acceptance of the current version"),
});

const agree = createRoute({
  method: "post",
  path: "/agreements/v2/agreement/{agreement_id}/agree",
  tags: ["Agreements"],
  summary: "The pilot agrees to the agreement's current version (agreeing again keeps the first date)",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: {
    params: agreementParams,
    body: {
      content: {
        "application/json": {
          schema: z.object({
            agree_date: z.string().optional().openapi({
              description:
                "When the pilot agreed (default now): ISO 8601 with an offset, as the Swift SDK writes it",
              example: "2026-11-29T03:04:05.678+0000",
            }),
          }),
        },
      },
      required: false,
    },
  },
  responses: responses(AgreementStatus, "The acceptance, recorded"),
});

export const agreementRoutes = createRouter()
  .openapi(listByAuthority, async (c) =>
    success(c, await authorityAgreements(c.var.db, c.req.valid("param").authority_id)),
  )
  .openapi(document, async (c) => {
    const markdown = c.req.valid("query").with_markdown === true;
    return success(c, await agreementDocument(c.var.db, c.req.valid("param").agreement_id, markdown));
  })
  .openapi(pdf, async (c) => {
    const { bytes, fileName } = await agreementFile(c.var.db, c.req.valid("param").agreement_id);
    return c.body(bytes.buffer as ArrayBuffer, 200, {
      "content-type": "application/pdf",
      "content-disposition": `inline; filename="${fileName}"`,
    });
  })
  .openapi(agreed, async (c) =>
    success(c, await agreementStatus(c.var.db, c.var.pilotId!, c.req.valid("param").agreement_id)),
  )
  .openapi(agree, async (c) => {
    const body = c.req.valid("json") as { agree_date?: string } | undefined;
    const id = c.req.valid("param").agreement_id;
    return success(c, await agreeTo(c.var.db, c.var.pilotId!, id, body?.agree_date));
  });
