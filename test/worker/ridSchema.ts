import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import f3411Text from "../fixtures/interuss/f3411_v22a_uss.yaml?raw";
import injectionText from "../fixtures/interuss/rid_injection.yaml?raw";

/**
 * Validation of requests and responses against the documents themselves (OpenAPI 3.0, copied under
 * test/fixtures/interuss/), with Ajv: each document is added whole under an id, and a body is checked
 * against the schema the document declares at that path, method and status.
 *
 * OpenAPI 3.0 is JSON Schema draft 4-like: boolean exclusiveMinimum/Maximum become draft-07 numbers,
 * `example` and its number formats (float, double, int32) are annotations. One erratum of the
 * injection document is corrected: its Longitude has `minimum: 180, maximum: -180` (swapped), which
 * no longitude could meet; `format: datetime` (sic) is read as date-time.
 */

type Json = Record<string, any>;

function draft07(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draft07);
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = draft07(value);
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (out[exclusive] === true) {
      out[exclusive] = out[bound];
      delete out[bound];
    } else if (out[exclusive] === false) delete out[exclusive];
  }
  return out;
}

function load(text: string, id: string, errata?: (doc: Json) => void) {
  const doc = draft07(parse(text)) as Json;
  errata?.(doc);
  doc.$id = id;
  return doc;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
for (const format of ["float", "double", "int32"]) ajv.addFormat(format, true);
ajv.addFormat("datetime", (v: string) => !Number.isNaN(Date.parse(v)));

export const F3411 = "https://windsock.test/f3411_v22a_uss.yaml";
export const INJECTION = "https://windsock.test/rid_injection.yaml";
const documents: Record<string, Json> = {
  [F3411]: load(f3411Text, F3411),
  [INJECTION]: load(injectionText, INJECTION, (doc) => {
    doc.components.schemas.Longitude.minimum = -180;
    doc.components.schemas.Longitude.maximum = 180;
  }),
};
for (const doc of Object.values(documents)) ajv.addSchema(doc);

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const compiled = new Map<string, ValidateFunction>();

function validate(doc: string, path: string, value: unknown): string[] {
  const ref = `${doc}#/${path}`;
  let check = compiled.get(ref);
  if (!check) {
    check = ajv.compile({ $ref: ref });
    compiled.set(ref, check);
  }
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

/** Problems of a response body against what the document declares for that path, method and status. */
export function responseErrors(
  doc: string,
  path: string,
  method: string,
  status: number,
  body: unknown,
): string[] {
  const operation = documents[doc]!.paths[path]?.[method];
  if (!operation) return [`no ${method} ${path}`];
  const response = operation.responses[String(status)];
  if (!response) return [`${method} ${path} does not declare ${status}`];
  if (!response.content) return body === undefined ? [] : ["a body where the document declares none"];
  return validate(
    doc,
    pointer("paths", path, method, "responses", String(status), "content", "application/json", "schema"),
    body,
  );
}

/** Problems of a request body against the operation's requestBody. */
export function requestErrors(doc: string, path: string, method: string, body: unknown): string[] {
  if (!documents[doc]!.paths[path]?.[method]?.requestBody) return [`no request body for ${method} ${path}`];
  return validate(
    doc,
    pointer("paths", path, method, "requestBody", "content", "application/json", "schema"),
    body,
  );
}

/** Problems of a value against a named component schema. */
export function componentErrors(doc: string, name: string, value: unknown): string[] {
  return validate(doc, pointer("components", "schemas", name), value);
}
