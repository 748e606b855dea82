/**
 * What a browser gets instead of JSend when one of the flight's pages (live, briefing) refuses its
 * link: what happened, in words, and how to get a link that works.
 */
export interface PageProblem {
  status: number;
  /** The service's own message (the JSend one). */
  message: string;
  flightId: string | null;
}

export function renderProblemPage(problem: PageProblem): string {
  const { heading, advice } = explain(problem);
  const ticketCall = problem.flightId
    ? `POST /flight/v2/${esc(encodeURIComponent(problem.flightId))}/ticket`
    : "POST /flight/v2/{id}/ticket";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(heading)}</title><style>
:root{color-scheme:light dark}body{margin:0;font:16px/1.5 system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;background:#f6f7f9}
@media (prefers-color-scheme:dark){body{background:#0f1216;color:#e6e9ee}}
main{max-width:32rem;padding:1.5rem 2rem;background:#fff1;border-radius:.6rem;box-shadow:0 1px 3px #0003}h1{font-size:1.3rem;margin-top:0}
code{font-size:.9em;word-break:break-all}.detail{color:#6b7280;font-size:.9rem}</style></head><body><main>
<h1 id="problem">${esc(heading)}</h1><p id="advice">${advice}</p>
<p>Whoever sent you the link can make a new one: the pilot's app, or with the API <code>${ticketCall}</code>, whose <code>live_url</code> and <code>briefing_url</code> work for 5 minutes.</p>
<p class="detail">The service said (${problem.status}): ${esc(problem.message)}</p></main></body></html>`;
}

function explain({ status, message }: PageProblem): { heading: string; advice: string } {
  if (/ticket expired/.test(message))
    return {
      heading: "This link has expired",
      advice: "Links to a flight's pages work for 5 minutes after they are made. Ask for a new one.",
    };
  if (/revoked/.test(message))
    return {
      heading: "This link no longer works",
      advice: "The app key it was made with has been withdrawn by the operator.",
    };
  if (status === 401)
    return {
      heading: "This link is not valid",
      advice: "It is incomplete or was changed after it was made. Open the link exactly as you got it.",
    };
  if (status === 403 || status === 404)
    return {
      heading: "This flight cannot be shown",
      advice: "The link is for another flight, or the flight does not exist or is not shared with you.",
    };
  if (status === 429)
    return {
      heading: "Too many requests just now",
      advice: "This page was opened too often in the last minute. Wait a minute, then reload.",
    };
  return { heading: "This page cannot be shown", advice: "Try again in a moment." };
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
