import flightPlanning from "../fixtures/interuss/flight_planning.json";
import geospatialMap from "../fixtures/interuss/geospatial_map.json";

/**
 * A small OpenAPI 3.0 schema check over the InterUSS interfaces' own documents (copied under
 * test/fixtures/interuss/, converted to JSON): type, required, properties, enum, items, anyOf,
 * pattern, min/maxLength and local `$ref`s. References to the interfaces' other files
 * (`./geotemporal.yaml#…`, `./astm_f3548_21.yaml#…`) are not copied and accept any value.
 */

type Schema = Record<string, any>;
type Doc = { components: { schemas: Record<string, Schema> }; paths: Record<string, any> };

/**
 * Two `required` entries in geospatial_map v0.2.3 name properties in camelCase while the properties
 * themselves are snake_case (the qualifier sends and reads snake_case): checked as the properties.
 */
const ERRATA: Record<string, Record<string, string>> = {
  GeospatialMapCheck: { filterSets: "filter_sets" },
  GeospatialMapCheckResult: { featuresSelectionOutcome: "features_selection_outcome" },
};

export const DOCS = {
  geospatialMap: geospatialMap as unknown as Doc,
  flightPlanning: flightPlanning as unknown as Doc,
};

function check(doc: Doc, schema: Schema, value: unknown, at: string, errors: string[], name?: string): void {
  if (schema.$ref) {
    const ref: string = schema.$ref;
    if (!ref.startsWith("#/components/schemas/")) return;
    const target = ref.slice("#/components/schemas/".length);
    const resolved = doc.components.schemas[target];
    if (!resolved) {
      errors.push(`${at}: unresolved ${ref}`);
      return;
    }
    check(doc, resolved, value, at, errors, target);
    return;
  }
  if (schema.anyOf) {
    const passing = (schema.anyOf as Schema[]).some((s) => {
      const sub: string[] = [];
      check(doc, s, value, at, sub);
      return sub.length === 0;
    });
    if (!passing) errors.push(`${at}: matches none of anyOf`);
  }
  if (schema.enum && !schema.enum.includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} not in ${schema.enum.join("|")}`);
  switch (schema.type) {
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        errors.push(`${at}: expected object`);
        return;
      }
      const record = value as Record<string, unknown>;
      for (const required of schema.required ?? []) {
        const property = ERRATA[name ?? ""]?.[required] ?? required;
        if (!(property in record)) errors.push(`${at}: missing ${property}`);
      }
      for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
        if (key in record) check(doc, sub, record[key], `${at}.${key}`, errors);
      return;
    }
    case "array":
      if (!Array.isArray(value)) {
        errors.push(`${at}: expected array`);
        return;
      }
      value.forEach((item, i) => {
        check(doc, schema.items ?? {}, item, `${at}[${i}]`, errors);
      });
      return;
    case "string":
      if (typeof value !== "string") {
        errors.push(`${at}: expected string`);
        return;
      }
      if (schema.pattern && !new RegExp(schema.pattern.trim()).test(value))
        errors.push(`${at}: does not match ${schema.pattern}`);
      if (schema.minLength !== undefined && value.length < schema.minLength)
        errors.push(`${at}: shorter than ${schema.minLength}`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength)
        errors.push(`${at}: longer than ${schema.maxLength}`);
      return;
    case "boolean":
      if (typeof value !== "boolean") errors.push(`${at}: expected boolean`);
      return;
    case "number":
    case "integer":
      if (typeof value !== "number") errors.push(`${at}: expected number`);
      return;
  }
}

/** Problems of `value` against a named component schema; empty when it conforms. */
export function schemaErrors(doc: Doc, component: string, value: unknown): string[] {
  const errors: string[] = [];
  check(doc, { $ref: `#/components/schemas/${component}` }, value, component, errors);
  return errors;
}

/** Problems of a response body against what the document declares for that path, method and status. */
export function responseErrors(
  doc: Doc,
  path: string,
  method: string,
  status: number,
  body: unknown,
): string[] {
  const operation = doc.paths[path]?.[method];
  if (!operation) return [`no ${method} ${path} in the document`];
  const response = operation.responses[String(status)];
  if (!response) return [`${method} ${path} does not declare ${status}`];
  const schema = response.content?.["application/json"]?.schema;
  if (!schema) return [];
  const errors: string[] = [];
  check(doc, schema, body, `${method} ${path} ${status}`, errors);
  return errors;
}

/** Problems of a request body against the operation's requestBody schema. */
export function requestErrors(doc: Doc, path: string, method: string, body: unknown): string[] {
  const schema = doc.paths[path]?.[method]?.requestBody?.content?.["application/json"]?.schema;
  if (!schema) return [`no request body for ${method} ${path}`];
  const errors: string[] = [];
  check(doc, schema, body, `${method} ${path} request`, errors);
  return errors;
}
