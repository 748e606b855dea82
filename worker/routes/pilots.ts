import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { VerificationChannel } from "../../schema";
import { createRouter, jsonOrForm, validationError } from "../app";
import {
  anonymizedPilotId,
  fullProfile,
  MAX_USER_METADATA_CHARS,
  MAX_USER_METADATA_DEPTH,
  nestingDepth,
  normalizePhone,
  publicProfile,
} from "../domain/pilots";
import { parseVerificationCode } from "../domain/verification";
import type { AppEnv } from "../env";
import { notFound } from "../lib/errors";
import { errorBody, success } from "../lib/jsend";
import { booleanFlag, jsonOrFormBody, recordId, responses, securityWithToken } from "../lib/openapi";
import { requireOwnPilot } from "../middleware/ownPilot";
import { optionalToken, pilotIdOf, requireToken } from "../middleware/token";
import { Empty } from "../schemas/service";
import { changePilotProfile } from "../services/pilotProfile";
import { sendVerificationCode, verifyContact } from "../services/pilotVerification";
import { findPilot, type PilotChanges } from "../store/pilots";

const PilotParams = z.object({ id: recordId("id") });
const ReadQuery = z.object({
  statistics: booleanFlag.openapi({ description: "Include flight and aircraft statistics (default true)" }),
});

const Statistics = z
  .object({
    flight: z.object({ total: z.number().int(), last_flight_time: z.string().nullable() }),
    aircraft: z.object({ total: z.number().int() }),
  })
  .openapi("PilotStatistics");

const FullProfile = z
  .object({
    id: z.string(),
    anonymized_id: z.string().openapi({ description: "A stable id that does not give the pilot's id away" }),
    email: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    username: z.string(),
    picture_url: z.string().nullable(),
    phone: z.string().nullable(),
    user_metadata: z.record(z.string(), z.unknown()),
    app_metadata: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    verification_status: z.object({ email: z.boolean(), phone: z.boolean() }),
    statistics: Statistics.optional(),
  })
  .openapi("Pilot");

const PublicProfile = z
  .object({ id: z.string(), username: z.string(), statistics: Statistics.optional() })
  .openapi("PublicPilot");

const optionalName = z.string().trim().min(1).max(100).nullable().optional();

/** The fields a pilot may change (CONTRACT §5); anything else is named in a 400. */
const patchFields = {
  first_name: optionalName,
  last_name: optionalName,
  username: z.string().trim().min(1).max(64).optional(),
  email: z
    .string()
    .trim()
    .max(254)
    .pipe(z.email({ error: "must be an email address" }))
    .nullable()
    .optional(),
  phone: z
    .string()
    .max(32)
    .transform((value, ctx) => {
      const e164 = normalizePhone(value);
      if (e164 === undefined)
        ctx.addIssue({
          code: "custom",
          message: "must be a phone number with country code, e.g. +13105551212",
        });
      return e164 ?? value;
    })
    .nullable()
    .optional()
    .openapi({ description: "E.164 after normalization (spaces, dashes and brackets are dropped)" }),
  picture_url: z
    .url({ protocol: /^https$/, error: "must be an https URL" })
    .max(2048)
    .nullable()
    .optional(),
  user_metadata: z
    .record(z.string(), z.unknown())
    .refine((value) => JSON.stringify(value).length <= MAX_USER_METADATA_CHARS, {
      message: `at most ${MAX_USER_METADATA_CHARS} characters of JSON`,
    })
    .refine((value) => nestingDepth(value) <= MAX_USER_METADATA_DEPTH, {
      message: `nested at most ${MAX_USER_METADATA_DEPTH} levels deep`,
    })
    .optional()
    .openapi({ description: "Merged key by key into the stored object; a key set to null is removed" }),
};

/**
 * Set by the application, never by the pilot; the Swift SDK sends it on every edit (even `{}`,
 * AirMapPilot.swift 73–78) and the Android SDK whenever its pilot has it: accepted and ignored.
 */
const IGNORED_PATCH_FIELDS = new Set(["app_metadata"]);

const PilotPatch = z
  .object(patchFields)
  .catchall(z.unknown())
  .superRefine((body, ctx) => {
    for (const key of Object.keys(body)) {
      if (Object.hasOwn(patchFields, key) || IGNORED_PATCH_FIELDS.has(key)) continue;
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `is not a field a pilot can change; use ${Object.keys(patchFields).join(", ")}`,
      });
    }
  })
  .openapi("PilotPatch", {
    additionalProperties: false,
    description: "`app_metadata` may be sent (the SDKs do) and is ignored: the application sets it",
  });

const VerifyRequest = z
  .object({
    token: z
      .union([z.string(), z.number()])
      .transform((value, ctx) => {
        const code = parseVerificationCode(value);
        if (code === undefined)
          ctx.addIssue({ code: "custom", message: "must be the 6-digit code, as a string or a number" });
        return code ?? "";
      })
      .openapi({ example: "123456" }),
  })
  .openapi("VerifyTokenRequest");

const CHANNELS: VerificationChannel[] = ["phone", "email"];

const readProfile = createRoute({
  method: "get",
  path: "/pilot/v2/profile",
  tags: ["Pilots"],
  summary: "The token's own pilot, full profile (same as /pilot/v2/{own id})",
  security: securityWithToken,
  middleware: [requireToken] as const,
  request: { query: ReadQuery },
  responses: responses(FullProfile, "The full profile"),
});

const readPilot = createRoute({
  method: "get",
  path: "/pilot/v2/{id}",
  tags: ["Pilots"],
  summary: "A pilot: the full profile with the pilot's own token, else exactly id, username, statistics",
  security: securityWithToken,
  middleware: [optionalToken] as const,
  request: { params: PilotParams, query: ReadQuery },
  responses: responses(z.union([FullProfile, PublicProfile]), "The full or public profile"),
});

const patchPilot = createRoute({
  method: "patch",
  path: "/pilot/v2/{id}",
  tags: ["Pilots"],
  summary: "Change the pilot's own profile; a changed phone or email must be verified again",
  security: securityWithToken,
  middleware: [requireOwnPilot] as const,
  // JSON, or the form the Android SDK patches a phone number with (PilotService.java 61–65).
  request: { params: PilotParams, body: jsonOrFormBody(PilotPatch) },
  responses: responses(FullProfile.partial(), "The changed fields, as stored"),
});

const deliveryFailures = {
  502: { description: "The SMS or email provider refused the message or could not be reached" },
  503: { description: "No SMS or email provider is configured on this server" },
} as const;

function sendCodeRoute(channel: VerificationChannel) {
  return createRoute({
    method: "post",
    path: `/pilot/v2/{id}/${channel}/send_token`,
    tags: ["Pilots"],
    summary: `Send a 6-digit code to the pilot's ${channel} (valid 10 minutes; at most 5 an hour)`,
    security: securityWithToken,
    middleware: [requireOwnPilot] as const,
    request: { params: PilotParams },
    responses: { ...responses(Empty, "The code is on its way"), ...deliveryFailures },
  });
}

function verifyCodeRoute(channel: VerificationChannel) {
  return createRoute({
    method: "post",
    path: `/pilot/v2/{id}/${channel}/verify_token`,
    tags: ["Pilots"],
    summary: `Check the code sent to the pilot's ${channel}; one attempt per code`,
    security: securityWithToken,
    middleware: [requireOwnPilot] as const,
    request: {
      params: PilotParams,
      body: {
        content: {
          "application/json": { schema: VerifyRequest },
          "application/x-www-form-urlencoded": { schema: VerifyRequest },
        },
      },
    },
    responses: responses(z.object({ verified: z.boolean() }), "Whether the contact is now verified"),
  });
}

async function loadPilot(c: Context<AppEnv>, pilotId: string, statistics = true) {
  const found = await findPilot(c.var.db, c.var.account.id, pilotId, { statistics, now: Date.now() });
  if (!found) throw notFound("Pilot");
  return found;
}

async function sendCode(c: Context<AppEnv>, pilotId: string, channel: VerificationChannel) {
  const outcome = await sendVerificationCode(c.env, c.var.db, c.var.account.id, pilotId, channel);
  if (outcome === "no_provider")
    return c.json(errorBody(503, `No ${channel} delivery is configured on this server`), 503);
  if (outcome === "not_delivered")
    return c.json(errorBody(502, `The ${channel} code could not be sent; try again later`), 502);
  return success(c, {});
}

async function verifyCode(
  c: Context<AppEnv>,
  pilotId: string,
  channel: VerificationChannel,
  submitted: { json: object; form: object },
) {
  // Both media types are optional, so the body that arrived is checked here.
  const body = Object.keys(submitted.json).length > 0 ? submitted.json : submitted.form;
  const parsed = VerifyRequest.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const verified = await verifyContact(c.var.db, c.var.account.id, pilotId, channel, parsed.data.token);
  return success(c, { verified });
}

/** The patch as profile changes; undefined when it names nothing a pilot changes (at most the ignored app_metadata). */
function pilotChanges(body: z.infer<typeof PilotPatch>): PilotChanges | undefined {
  if (!Object.keys(body).some((key) => Object.hasOwn(patchFields, key))) return undefined;
  return {
    firstName: body.first_name,
    lastName: body.last_name,
    username: body.username,
    email: body.email,
    phone: body.phone,
    pictureUrl: body.picture_url,
    userMetadataPatch: body.user_metadata,
  };
}

/** The fields the request named, as stored, plus verification status when a contact was sent. */
function changedFields(body: Record<string, unknown>, profile: ReturnType<typeof fullProfile>) {
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(body)) changed[key] = profile[key as keyof typeof profile];
  if ("phone" in body || "email" in body) changed.verification_status = profile.verification_status;
  return changed;
}

export const pilotRoutes = createRouter()
  .openapi(readProfile, async (c) => {
    const { pilot, statistics } = await loadPilot(c, c.var.pilotId!, c.req.valid("query").statistics);
    return success(c, fullProfile(pilot, await anonymizedPilotId(pilot.id), statistics));
  })
  .openapi(readPilot, async (c) => {
    const id = pilotIdOf(c, c.req.valid("param").id);
    const { pilot, statistics } = await loadPilot(c, id, c.req.valid("query").statistics);
    return success(
      c,
      c.var.pilotId === id
        ? fullProfile(pilot, await anonymizedPilotId(pilot.id), statistics)
        : publicProfile(pilot, statistics),
    );
  })
  .openapi(patchPilot, async (c) => {
    const body = jsonOrForm(PilotPatch, { json: c.req.valid("json"), form: c.req.valid("form") });
    const pilot = await changePilotProfile(c.var.db, c.var.account.id, c.var.pilotId!, pilotChanges(body));
    return success(c, changedFields(body, fullProfile(pilot, await anonymizedPilotId(pilot.id))));
  });

for (const channel of CHANNELS) {
  // requireOwnPilot checked `{id}`: the token's pilot is the one meant.
  pilotRoutes.openapi(sendCodeRoute(channel), (c) => sendCode(c, c.var.pilotId!, channel));
  pilotRoutes.openapi(verifyCodeRoute(channel), (c) =>
    verifyCode(c, c.var.pilotId!, channel, { json: c.req.valid("json"), form: c.req.valid("form") }),
  );
}
