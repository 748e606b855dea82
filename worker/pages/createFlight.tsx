import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { isSynthetic, SYNTHETIC_MARK, SYNTHETIC_MEANING } from "../domain/airspace/synthetic";
import { UNIT_LABEL } from "../domain/deeplink/altitude";
import type { MapView } from "../domain/deeplink/mapView";
import { authorizationStep, VERDICT_TEXT, verdictOf } from "../domain/deeplink/nextSteps";
import { pick1Groups, type RulesetChoice } from "../domain/deeplink/rulesets";
import type { FieldError } from "../lib/jsend";
import {
  DURATIONS_MINUTES,
  type FlightCreatedModel,
  OPTIONAL_FIELD,
  type PageModel,
  PICK1_FIELD,
  START_OFFSETS_MINUTES,
} from "../services/createFlightFlow";
import { mapLegend, renderLegend, renderMapSvg } from "./map/svg";

/**
 * The contract has the page return to the app's callback once the flight exists; a browser first
 * shows the result for this long (a meta refresh: it works without scripts), with a link to go now.
 */
export const RETURN_AFTER_SECONDS = 15;

export const COLOR_MEANING: Record<string, string> = {
  green: "No known advisories",
  yellow: "Advisories: use caution",
  orange: "Flight regulated: authorization required",
  red: "Flight strictly regulated",
};

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
main{max-width:46rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.25rem 0 .75rem}h2{font-size:1.15rem;margin:0 0 .5rem}
section,fieldset{background:#fff;border:1px solid #d0d5dc;border-radius:.5rem;padding:1rem;margin:0 0 1rem}
fieldset{min-width:0}legend{font-weight:600;padding:0 .25rem}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}
.choice{display:flex;gap:.6rem;align-items:flex-start;margin:.4rem 0;font-weight:400}
.choice input{width:1.35rem;height:1.35rem;margin:.1rem 0 0;flex:none}
.choice small{display:block;color:#4b5563}
input[type=text],input[type=number],select{width:100%;font:inherit;padding:.6rem;border:1px solid #6b7280;border-radius:.375rem;background:#fff}
input:focus-visible,select:focus-visible,button:focus-visible,a:focus-visible,[tabindex]:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
.row{display:grid;grid-template-columns:1fr;gap:0 1rem}
@media (min-width:40rem){.row{grid-template-columns:1fr 1fr;align-items:end}}
.hint{color:#4b5563;font-size:.9rem;margin:.25rem 0 0}
.error-text{color:#b91c1c;font-weight:600;margin:.25rem 0 0}
[aria-invalid=true]{border-color:#b91c1c;border-width:2px}
.summary{border:3px solid #b91c1c;background:#fff;border-radius:.5rem;padding:1rem;margin:0 0 1rem}
.summary a{color:#b91c1c;font-weight:600}
.map{width:100%;height:auto;display:block;background:#e8eef3;border-radius:.375rem}
.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;font-weight:600;font-size:.9rem;color:#fff}
.green{background:#1a7f37}.yellow{background:#8a6a00}.orange{background:#c2410c}.red{background:#b91c1c}
.badge.synthetic{background:#fff;color:#7c2d12;border:1px dashed #7c2d12}
ul.advisories{list-style:none;padding:0;margin:.5rem 0 0}ul.advisories li{padding:.35rem 0;border-top:1px solid #e5e7eb}
.actions{display:flex;flex-wrap:wrap;gap:.75rem}
button{font:inherit;font-weight:600;padding:.75rem 1.25rem;border-radius:.375rem;border:2px solid #1d4ed8;cursor:pointer;min-height:2.75rem}
button.primary{background:#1d4ed8;color:#fff}button.secondary{background:#fff;color:#1d4ed8}
code{word-break:break-all}
.verdict{font-weight:600;padding:.5rem .75rem;border-radius:.375rem;border-left:6px solid}
.verdict.authorized,.verdict.not_required{border-color:#1a7f37;background:#eef8f0}
.verdict.waiting{border-color:#8a6a00;background:#fdf8e6}.verdict.not_authorized{border-color:#b91c1c;background:#fdeeee}
ul.authorizations{list-style:none;padding:0;margin:.5rem 0 0}
ul.authorizations li{padding:.5rem 0;border-top:1px solid #e5e7eb}ul.authorizations span{display:block}
ul.next li{margin:.35rem 0}
a.button{display:inline-block;font-weight:600;padding:.6rem 1rem;border-radius:.375rem;background:#1d4ed8;color:#fff;text-decoration:none}
`;

/** The deep-link pages' frame (also the briefing page's): no scripts, one inline style sheet. */
export function Document(props: { title: string; children: Child; refresh?: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        {props.refresh ? <meta http-equiv="refresh" content={props.refresh} /> : null}
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

export async function html(node: ReturnType<typeof Document>): Promise<string> {
  return `<!doctype html>${await node.toString()}`;
}

export const renderCreateFlight = (model: PageModel) => html(<CreateFlightPage model={model} />);
export const renderLinkProblem = (problems: FieldError[]) => html(<LinkProblemPage problems={problems} />);
export const renderFlightCreated = (model: FlightCreatedModel) => html(<FlightCreatedPage model={model} />);

function errorFor(errors: FieldError[], name: string): FieldError | undefined {
  return errors.find((e) => e.name === name);
}

function FieldErrorText(props: { id: string; error?: FieldError }) {
  return props.error ? (
    <p class="error-text" id={`${props.id}-error`}>
      {props.error.message}
    </p>
  ) : null;
}

/** Invalid fields point at their message; hints stay announced too. */
function describedBy(id: string, error: FieldError | undefined, hint?: string): string | undefined {
  const ids = [hint, error ? `${id}-error` : undefined].filter(Boolean);
  return ids.length > 0 ? ids.join(" ") : undefined;
}

const FIELD_LABELS: Record<string, string> = {
  sign_in: "Sign in",
  rulesets: "Rulesets",
  altitude: "Maximum altitude",
  buffer: "Buffer",
  start: "Start",
  duration: "Duration",
};

function ErrorSummary(props: { errors: FieldError[] }) {
  if (props.errors.length === 0) return null;
  return (
    <div class="summary" role="alert" tabindex={-1} id="error-summary" autofocus>
      <h2>There is a problem</h2>
      <ul>
        {props.errors.map((e) =>
          FIELD_LABELS[e.name] ? (
            <li>
              <a href={`#${e.name}`}>
                {FIELD_LABELS[e.name]}: {e.message}
              </a>
            </li>
          ) : (
            <li>{e.message}</li>
          ),
        )}
      </ul>
    </div>
  );
}

function AreaMap(props: { map: MapView; geometryType: string; advisoryCount: number }) {
  const { map } = props;
  const shape =
    props.geometryType === "Polygon"
      ? "area"
      : props.geometryType === "Point"
        ? "circle around a point"
        : "corridor along a path";
  // The shared map (also the live page's), rendered to SVG markup that escapes its own text.
  return raw(
    renderMapSvg({
      layers: map.layers,
      area: map.area,
      route: map.route,
      point: map.point,
      markers: map.markers,
      id: "map",
      className: "map",
      title: `Map of the flight ${shape} with ${props.advisoryCount} advisor${props.advisoryCount === 1 ? "y" : "ies"}`,
    }) + renderLegend(mapLegend(map.layers)),
  );
}

function Advisories(props: { model: PageModel }) {
  const { color, advisories, advisoryNote } = props.model;
  return (
    <section aria-labelledby="advisories-heading">
      <h2 id="advisories-heading">Airspace</h2>
      <AreaMap
        map={props.model.map}
        geometryType={props.model.geometryType}
        advisoryCount={advisories.length}
      />
      {props.model.map.markers.some((m) => m.offMap) ? (
        <p class="hint">Hollow markers: advisories centred beyond the edge of the map, in their direction.</p>
      ) : null}
      {advisoryNote ? <p class="hint">{advisoryNote}</p> : null}
      {color ? (
        <p id="advisory-color">
          <span class={`badge ${color}`}>{color}</span> {COLOR_MEANING[color] ?? ""}
        </p>
      ) : null}
      {advisories.length > 0 ? (
        <ul class="advisories">
          {advisories.map((a) => (
            <li>
              <span class={`badge ${a.color}`}>{a.color}</span> {a.name}{" "}
              <small>({a.type.replace(/_/g, " ")})</small>
              {isSynthetic(a.properties) ? (
                <>
                  {" "}
                  <span class="badge synthetic">{SYNTHETIC_MARK}</span>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {advisories.some((a) => isSynthetic(a.properties)) ? (
        <p class="hint" id="synthetic-meaning">
          <span class="badge synthetic">{SYNTHETIC_MARK}</span> {SYNTHETIC_MEANING}
        </p>
      ) : null}
    </section>
  );
}

function Rulesets(props: { model: PageModel }) {
  const { rulesets, rulesetNote, form, errors } = props.model;
  const error = errorFor(errors, "rulesets");
  const group = (type: RulesetChoice["selection_type"]) => rulesets.filter((r) => r.selection_type === type);
  const required = group("required");
  const optional = group("optional");
  const Choice = (p: {
    ruleset: RulesetChoice;
    name?: string;
    type: "radio" | "checkbox";
    fixed?: boolean;
  }) => (
    <label class="choice">
      <input
        type={p.type}
        name={p.name}
        value={p.ruleset.id}
        checked={p.fixed || form.selected.includes(p.ruleset.id)}
        disabled={p.fixed}
        aria-describedby={p.fixed ? "required-hint" : undefined}
      />
      <span>
        {p.ruleset.name}
        {p.ruleset.description ? <small>{p.ruleset.description}</small> : null}
      </span>
    </label>
  );
  return (
    <fieldset
      id="rulesets"
      aria-invalid={error ? "true" : undefined}
      aria-describedby={error ? "rulesets-error" : undefined}
    >
      <legend>Rulesets</legend>
      {rulesetNote ? <p class="hint">{rulesetNote}</p> : null}
      <FieldErrorText id="rulesets" error={error} />
      {required.length > 0 ? (
        <div>
          <p class="hint" id="required-hint">
            Always applied in this area:
          </p>
          {required.map((r) => (
            <Choice ruleset={r} type="checkbox" fixed />
          ))}
        </div>
      ) : null}
      {pick1Groups(rulesets).map((g) => (
        <fieldset>
          <legend>Fly under one of{g.jurisdiction ? ` (${g.jurisdiction})` : ""}</legend>
          {g.rulesets.map((r) => (
            <Choice ruleset={r} name={`${PICK1_FIELD}${g.key}`} type="radio" />
          ))}
        </fieldset>
      ))}
      {optional.length > 0 ? (
        <fieldset>
          <legend>Also apply (optional)</legend>
          {optional.map((r) => (
            <Choice ruleset={r} name={OPTIONAL_FIELD} type="checkbox" />
          ))}
        </fieldset>
      ) : null}
    </fieldset>
  );
}

function Select(props: {
  id: string;
  label: string;
  options: { value: string; label: string }[];
  value: string;
  errors: FieldError[];
  hint?: string;
}) {
  const error = errorFor(props.errors, props.id);
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        name={props.id}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy(props.id, error, props.hint ? `${props.id}-hint` : undefined)}
      >
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldErrorText id={props.id} error={error} />
    </div>
  );
}

/** The pilot's sign-in: who the flight is for, or how to sign in, or what the operator must set. */
function SignIn(props: { model: PageModel }) {
  const m = props.model;
  const error = errorFor(m.errors, "sign_in");
  const signIn = m.signIn;
  return (
    <fieldset id="sign_in">
      <legend>Sign in</legend>
      {signIn.kind === "grant" ? (
        <p>You are signed in as the pilot {m.appName} sent this link for; the flight is created for you.</p>
      ) : signIn.kind === "provider" ? (
        <p>
          <a class="button primary" href={signIn.url}>
            Sign in to create the flight
          </a>{" "}
          with your {m.appName} account ({new URL(signIn.issuer).host}).
        </p>
      ) : signIn.kind === "grantUsed" ? (
        <p role="alert">
          This link's sign-in has been used or has expired.{" "}
          {signIn.providerUrl ? (
            <a href={signIn.providerUrl}>Sign in again</a>
          ) : (
            <>Ask {m.appName} for a new link.</>
          )}
        </p>
      ) : (
        <p class="hint" id="sign_in-setup">
          {m.appName} has not set up pilot sign-in, so no flight can be created here. The operator sets the
          application's identity provider (<code>npm run pilots:provider</code>), or the app builds its links
          with the pilot's token (<code>POST /deeplink/v1/create_flight</code> with{" "}
          <code>Authorization: Bearer</code>).
        </p>
      )}
      <FieldErrorText id="sign_in" error={error} />
    </fieldset>
  );
}

function minutesLabel(minutes: number): string {
  if (minutes === 0) return "Now";
  return minutes < 60 ? `${minutes} minutes` : `${minutes / 60} hour${minutes === 60 ? "" : "s"}`;
}

function CreateFlightPage(props: { model: PageModel }) {
  const m = props.model;
  const unit = UNIT_LABEL[m.unit];
  const bufferError = errorFor(m.errors, "buffer");
  return (
    <Document title={`${m.errors.length > 0 ? "Error: " : ""}Create a flight · ${m.appName}`}>
      <h1>Create a flight</h1>
      <p>
        Requested by <strong>{m.appName}</strong>.
        {m.returnTo ? (
          <>
            {" "}
            When the flight is created you return to <strong>{m.returnTo}</strong>.
          </>
        ) : null}
      </p>
      <ErrorSummary errors={m.errors} />
      <Advisories model={m} />
      <form method="post" action={m.action} novalidate>
        <SignIn model={m} />
        <Rulesets model={m} />
        <fieldset>
          <legend>Flight</legend>
          <div class="row">
            <Select
              id="altitude"
              label={`Maximum altitude above ground (${unit})`}
              options={m.altitudePresets.map((p) => ({ value: String(p.meters), label: p.label }))}
              value={String(m.form.altitudeMeters)}
              errors={m.errors}
            />
            {m.form.buffer !== undefined ? (
              <div>
                <label for="buffer">
                  Buffer around the {m.geometryType === "Point" ? "point" : "path"} ({unit})
                </label>
                <input
                  type="number"
                  id="buffer"
                  name="buffer"
                  inputmode="numeric"
                  min="1"
                  step="1"
                  value={m.form.buffer}
                  aria-invalid={bufferError ? "true" : undefined}
                  aria-describedby={describedBy("buffer", bufferError)}
                />
                <FieldErrorText id="buffer" error={bufferError} />
              </div>
            ) : null}
            <Select
              id="start"
              label="Start"
              options={START_OFFSETS_MINUTES.map((v) => ({
                value: String(v),
                label: v === 0 ? "Now" : `In ${minutesLabel(v)}`,
              }))}
              value={String(m.form.startOffset)}
              errors={m.errors}
            />
            <Select
              id="duration"
              label="Duration"
              options={DURATIONS_MINUTES.map((v) => ({ value: String(v), label: minutesLabel(v) }))}
              value={String(m.form.duration)}
              errors={m.errors}
            />
          </div>
          <p class="hint">
            Distances in {m.unit === "imperial" ? "feet" : "meters"}.{" "}
            <a href={m.otherUnitUrl}>Show in {m.unit === "imperial" ? "meters" : "feet"}</a>
          </p>
        </fieldset>
        <div class="actions">
          {m.signIn.kind === "grant" ? (
            <button type="submit" class="primary" name="action" value="create">
              Create flight
            </button>
          ) : null}
          <button type="submit" class="secondary" name="action" value="preview">
            Update airspace
          </button>
        </div>
      </form>
    </Document>
  );
}

/** A link that cannot be used: what is wrong and what to do, never a form. */
function LinkProblemPage(props: { problems: FieldError[] }) {
  return (
    <Document title="Error: this flight link cannot be used">
      <h1>This flight link cannot be used</h1>
      <div class="summary" role="alert">
        <ul>
          {props.problems.map((p) => (
            <li>
              <code>{p.name}</code>: {p.message}
            </li>
          ))}
        </ul>
      </div>
      <p>
        Go back to the app that sent you here and create the flight again; if it keeps failing, tell its
        developer.
      </p>
    </Document>
  );
}

/** The flight is created: what each authorization means, what to do, and where to go next. */
function FlightCreatedPage(props: { model: FlightCreatedModel }) {
  const m = props.model;
  const verdict = verdictOf(m.authorizations);
  const expires = m.pages ? new Date(m.pages.expiresAt) : undefined;
  return (
    <Document
      title={`Flight created · ${m.appName}`}
      refresh={m.returnUrl ? `${RETURN_AFTER_SECONDS};url=${m.returnUrl}` : undefined}
    >
      <h1>Flight created</h1>
      <p>
        Requested by <strong>{m.appName}</strong>. Flight id: <code id="flight-id">{m.flightId}</code>
      </p>
      <section aria-labelledby="authorizations-heading">
        <h2 id="authorizations-heading">Authorizations</h2>
        <p id="verdict" class={`verdict ${verdict}`}>
          {VERDICT_TEXT[verdict]}
        </p>
        {m.authorizations.length > 0 ? (
          <ul class="authorizations">
            {m.authorizations.map((a) => {
              const step = authorizationStep(a, m.appName);
              return (
                <li class={`authorization ${a.status}`}>
                  <strong class="status">{step.status}</strong>
                  <span class="what">{a.description}</span>
                  <span class="message">{a.message}</span>
                  <span class="todo">
                    <b>What to do:</b> {step.todo}
                  </span>
                </li>
              );
            })}
          </ul>
        ) : null}
      </section>
      <section aria-labelledby="next-heading">
        <h2 id="next-heading">Next</h2>
        <ul class="next">
          {m.pages ? (
            <>
              <li>
                <a id="live-link" href={m.pages.liveUrl}>
                  Watch the flight live
                </a>
                : its area, track, height above ground and conformance events.
              </li>
              <li>
                <a id="briefing-link" href={m.pages.briefingUrl}>
                  Read the flight's briefing
                </a>
                : advisories, rules and authorizations as they stand now.
              </li>
            </>
          ) : (
            <li>The flight's live page and briefing open from {m.appName}.</li>
          )}
          {m.returnUrl ? (
            <li>
              <a id="return-link" class="button" href={m.returnUrl}>
                Return to {m.appName}
              </a>{" "}
              with the flight and its authorizations (this page returns there by itself after{" "}
              {RETURN_AFTER_SECONDS} seconds).
            </li>
          ) : null}
        </ul>
        {expires ? (
          <p class="hint">
            These links open the pages until {expires.toISOString().slice(11, 16)} UTC (five minutes); later,
            open the flight from {m.appName}.
          </p>
        ) : null}
      </section>
    </Document>
  );
}
