import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The house rule of docs/architecture.md, checked from the code: an HTTP handler parses, calls ONE
 * service or store function, and answers. Decisions that need more than one store call or a domain
 * rule live in worker/services/.
 *
 * - A handler (a function given to `.openapi(…)`, `.get(…)`, `.post(…)`, …) together with the route
 *   file's own functions it calls, calls at most one distinct function imported from `store/`,
 *   `services/` or `telemetry/` (the Durable Object is storage too).
 * - A handler file imports from `domain/` only types, constants (SCREAMING_CASE: the limits a request
 *   schema states), and values from the modules below that parse input or shape an answer.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The HTTP floor: every file that declares handlers. */
const HANDLER_FILES = readdirSync(path.join(ROOT, "worker/routes")).map((name) => `worker/routes/${name}`);

/**
 * Domain values a handler may use: parsers of its input and shapers of its answer (every name of a
 * module with "*"). Anything else the domain decides is a service's to call.
 */
const ANSWER_SHAPERS = new Map<string, "*" | string[]>([
  ["domain/flightViews", "*"], // rows as the API's JSON
  ["domain/geojson", "*"], // GeoJSON types and unwrapping
  ["domain/problem", "*"], // problem values, mapped to JSend by lib/errors
  ["domain/telemetryArchive", ["sampleInterval"]], // the archive's `rate` parsed
  ["domain/deeplink/outerLink", "*"], // the outer link read, and the app-association answers
  ["domain/pilots", ["fullProfile", "anonymizedPilotId", "publicProfile", "normalizePhone", "nestingDepth"]],
  ["domain/verification", ["parseVerificationCode"]],
  ["domain/elevation/carpet", ["carpetJson"]], // the carpet's rows written as JSON bytes
  ["domain/map/tileAddress", ["readTileAddress"]], // a basemap tile's z/x/y
  ["domain/identityProvider", ["passwordGrant", "refreshGrant", "tokenEndpointGrant"]], // the SDKs' sign-in bodies as grants
]);

function shapesAnswers(module: string, name: string): boolean {
  const names = ANSWER_SHAPERS.get(module);
  return names === "*" || (names?.includes(name) ?? false);
}

/**
 * Handler files still waiting for their decisions to move into services/, each named with its debt
 * (SHOW_DEBT=1 runs them too, to list what is left).
 */
const NOT_YET_MOVED = new Map<string, string>([]);

const HTTP_METHODS = new Set(["openapi", "get", "post", "put", "patch", "delete", "all", "on"]);

interface Imported {
  module: string; // "store/flights", "services/airspace", "telemetry/flightTelemetry", "domain/flightState"
  typeOnly: boolean;
}

function importsOf(source: ts.SourceFile): Map<string, Imported> {
  const names = new Map<string, Imported>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const match = /^\.\.\/(store|services|telemetry|domain)\/(.+)$/.exec(statement.moduleSpecifier.text);
    if (!match) continue;
    const module = `${match[1]}/${match[2]}`;
    const clause = statement.importClause;
    if (!clause) continue;
    if (clause.name) names.set(clause.name.text, { module, typeOnly: clause.isTypeOnly });
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements)
        names.set(element.name.text, { module, typeOnly: clause.isTypeOnly || element.isTypeOnly });
  }
  return names;
}

/** The names of the file's own top-level functions (declarations and `const f = (…) =>`). */
function localFunctions(source: ts.SourceFile): Map<string, ts.Node> {
  const functions = new Map<string, ts.Node>();
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name) functions.set(statement.name.text, statement);
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations)
        if (
          ts.isIdentifier(declaration.name) &&
          declaration.initializer &&
          (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
        )
          functions.set(declaration.name.text, declaration.initializer);
  }
  return functions;
}

/** The store and services functions a handler calls, following the file's own functions it calls. */
function callsFrom(
  handler: ts.Node,
  imports: Map<string, Imported>,
  locals: Map<string, ts.Node>,
  seen = new Set<ts.Node>(),
): Set<string> {
  const called = new Set<string>();
  if (seen.has(handler)) return called;
  seen.add(handler);
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      const imported = imports.get(name);
      if (imported && !imported.module.startsWith("domain/")) called.add(`${name} (${imported.module})`);
      const local = locals.get(name);
      if (local) for (const inner of callsFrom(local, imports, locals, seen)) called.add(inner);
    }
    ts.forEachChild(node, visit);
  };
  visit(handler);
  return called;
}

/** Every function handed to a router method: `.openapi(route, handler)`, `.get(path, …, handler)`. */
function handlersOf(source: ts.SourceFile): { line: number; handler: ts.Node }[] {
  const handlers: { line: number; handler: ts.Node }[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      HTTP_METHODS.has(node.expression.name.text)
    ) {
      const last = node.arguments[node.arguments.length - 1];
      if (last && (ts.isArrowFunction(last) || ts.isFunctionExpression(last)))
        handlers.push({
          line: source.getLineAndCharacterOfPosition(last.getStart()).line + 1,
          handler: last,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return handlers;
}

function breaches(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports = importsOf(source);
  const locals = localFunctions(source);
  const found: string[] = [];
  for (const [name, imported] of imports)
    if (
      imported.module.startsWith("domain/") &&
      !imported.typeOnly &&
      !/^[A-Z][A-Z0-9_]*$/.test(name) &&
      !shapesAnswers(imported.module, name)
    )
      found.push(`${file} imports the domain rule ${name} from ${imported.module}: call it from a service`);
  for (const { line, handler } of handlersOf(source)) {
    const calls = callsFrom(handler, imports, locals);
    if (calls.size > 1)
      found.push(
        `${file}:${line} a handler calls ${calls.size}: ${[...calls].join(", ")}: make it one service`,
      );
  }
  return found;
}

describe("the house rule: routes parse, call one service or store function, and answer", () => {
  for (const file of HANDLER_FILES) {
    const debt = NOT_YET_MOVED.get(file);
    it.skipIf(debt !== undefined && !process.env.SHOW_DEBT)(file, () => {
      expect(breaches(file)).toEqual([]);
    });
  }

  it("the checker finds a handler with two store calls and a domain rule", () => {
    const probe = path.join(ROOT, "worker/routes/flights.ts");
    const text = `import { flightState } from "../domain/flightState";
import { findFlight, endFlight } from "../store/flights";
export const r = createRouter().openapi(end, async (c) => {
  if (flightState(c.var.flight, 0) === "ended") return success(c, 1);
  const one = await helper(c);
  return success(c, await endFlight(c.var.db, one.id, 0));
});
async function helper(c) { return findFlight(c.var.db, "a", "b"); }
`;
    const source = ts.createSourceFile(probe, text, ts.ScriptTarget.Latest, true);
    const handler = handlersOf(source)[0]!.handler;
    expect([...callsFrom(handler, importsOf(source), localFunctions(source))].sort()).toEqual([
      "endFlight (store/flights)",
      "findFlight (store/flights)",
    ]);
    expect(importsOf(source).get("flightState")).toEqual({ module: "domain/flightState", typeOnly: false });
  });

  it("every handler file still waiting is named for a reason that exists", () => {
    for (const file of NOT_YET_MOVED.keys()) expect(HANDLER_FILES).toContain(file);
  });
});
