import type { Authorization } from "./callbacks";

/**
 * What a created flight's authorizations mean to its pilot, in words: each one's status and what to
 * do about it, and the verdict over all of them. The authority's own message (the reason, and often
 * the remedy) is shown beside these.
 */

export interface AuthorizationStep {
  /** The status in words, naming the authority: "Accepted by FAA LAANC". */
  status: string;
  /** What the pilot does about it. */
  todo: string;
}

export type Verdict = "authorized" | "not_required" | "waiting" | "not_authorized";

export function authorizationStep(authorization: Authorization, appName: string): AuthorizationStep {
  const authority = authorization.authority.name;
  switch (authorization.status) {
    case "accepted":
      return {
        status: `Accepted by ${authority}`,
        todo: "You may fly as planned: inside the area, at or below the altitude, within the time.",
      };
    case "pending":
      return {
        status: `Pending: waiting for ${authority}`,
        todo: `Do not fly in this airspace until it is accepted. The flight's briefing and ${appName} show the answer when it comes.`,
      };
    case "rejected":
      return {
        status: `Rejected by ${authority}`,
        todo: `Do not fly this plan. Change it as the message says and create the flight again from ${appName}.`,
      };
    case "not_requested":
      return {
        status: `Not requested from ${authority}`,
        todo: "This service could not request it for you: request it yourself as the message says, and fly only once it is granted.",
      };
    case "cancelled":
      return {
        status: `Cancelled by ${authority}`,
        todo: `It no longer holds: do not fly this plan; create a new flight from ${appName}.`,
      };
  }
}

/** The flight's standing over all its authorizations: the worst one decides. */
export function verdictOf(authorizations: Authorization[]): Verdict {
  if (authorizations.length === 0) return "not_required";
  const statuses = new Set(authorizations.map((a) => a.status));
  if (statuses.has("rejected") || statuses.has("not_requested") || statuses.has("cancelled"))
    return "not_authorized";
  if (statuses.has("pending")) return "waiting";
  return "authorized";
}

export const VERDICT_TEXT: Record<Verdict, string> = {
  authorized: "Authorized: every authorization this flight needs is accepted.",
  not_required:
    "No authorization is required for this flight under the rulesets you chose. Check the advisories in the briefing before you fly.",
  waiting: "Not yet authorized: an authorization is still pending.",
  not_authorized: "Not authorized: do not fly this plan as it stands.",
};
