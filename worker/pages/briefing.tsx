import type { briefing } from "../domain/airspace/briefing";
import { COLOR_MEANING, Document, html } from "./createFlight";

type Briefing = ReturnType<typeof briefing>;

const words = (code: string) => code.replace(/_/g, " ");

/** What the page says about the plan beside its evaluation: its window, ceiling and map (HTML). */
export interface BriefedPlan {
  startTime: number;
  endTime: number;
  /** Meters above ground; 0: none. */
  maxAltitude: number;
  map: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
/** "29 Nov 2026, 14:05", UTC. */
const when = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${hhmm(ms)}`;
};

/**
 * A flight's briefing as its pilot reads it in a browser (the deep-link result page links here):
 * the same evaluation `GET /flight/v2/plan/{plan_id}/briefing` answers, in words.
 */
export const renderBriefingPage = (flightId: string, b: Briefing, plan: BriefedPlan) =>
  html(
    <Document title={`Flight briefing, ${when(plan.startTime)}`}>
      <h1>Flight briefing</h1>
      <p id="plan">
        <strong>
          {when(plan.startTime)} –{" "}
          {plan.endTime - plan.startTime < 86_400_000 ? hhmm(plan.endTime) : when(plan.endTime)} UTC
        </strong>
        ,{" "}
        {plan.maxAltitude > 0 ? `up to ${Math.round(plan.maxAltitude)} m above the ground` : "no ceiling set"}
        .{" "}
        <small>
          Flight <code>{flightId}</code>, plan <code>{b.flight_plan_id}</code>; evaluated{" "}
          {when(Date.parse(b.created_at))} UTC.
        </small>
      </p>
      <section aria-labelledby="map-heading">
        <h2 id="map-heading">Where</h2>
        <div dangerouslySetInnerHTML={{ __html: plan.map }} />
      </section>
      <section aria-labelledby="airspace-heading">
        <h2 id="airspace-heading">Airspace</h2>
        <p id="advisory-color">
          <span class={`badge ${b.color}`}>{b.color}</span> {COLOR_MEANING[b.color] ?? ""}
        </p>
        {b.advisories.length === 0 ? (
          <p>No advisories under the chosen rulesets.</p>
        ) : (
          <ul class="advisories">
            {b.advisories.map((a) => (
              <li>
                <span class={`badge ${a.color}`}>{a.color}</span> {a.name} <small>({words(a.type)})</small>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="briefing-authorizations-heading">
        <h2 id="briefing-authorizations-heading">Authorizations</h2>
        {b.authorizations.length === 0 ? (
          <p>None is required.</p>
        ) : (
          <ul class="authorizations">
            {b.authorizations.map((a) => (
              <li>
                <strong>
                  {a.authority.name}: {words(a.status)}
                </strong>
                <span>{a.description}</span>
                <span>{a.message}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="rules-heading">
        <h2 id="rules-heading">Rules</h2>
        {b.rulesets.map((ruleset) => (
          <>
            <h3>{ruleset.name}</h3>
            <ul class="rules">
              {ruleset.rules.map((rule) => (
                <li>
                  <strong>{words(rule.status)}</strong>: {rule.short_text}
                </li>
              ))}
            </ul>
          </>
        ))}
      </section>
      {b.validations.length > 0 ? (
        <section aria-labelledby="validations-heading">
          <h2 id="validations-heading">Validations</h2>
          <ul>
            {b.validations.map((v) => (
              <li>
                <strong>{words(v.status)}</strong>: {v.description}. {v.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </Document>,
  );
