import type { AreaAdvisory } from "./advisories";
import type { Color } from "./colors";
import type { Authorization } from "./laanc";
import { LAANC_AUTHORITY, type RuleStatus, type Ruleset, ruleStatus, triggerMatches } from "./rules";

/** The plan briefing of CONTRACT §4: what the pilot must know and do before the flight. */

export interface PilotContact {
  phone: string | null;
  phoneVerified: boolean;
  faaRegistrationNumber: unknown;
}

export interface BriefingInput {
  rulesets: Ruleset[];
  color: Color;
  advisories: AreaAdvisory[];
  /** The plan's flight features, its own fields (altitudes, extent) included. */
  features: Record<string, unknown>;
  /** What LAANC decides for the plan, and whether it was asked already (the plan is submitted). */
  authorizations: Authorization[];
  submitted: boolean;
  pilot: PilotContact;
}

export interface Validation {
  feature: { code: string; description: string };
  status: "valid" | "invalid" | "missing" | "unverified";
  message: string;
  authority: { id: string; name: string };
}

/** FAA registration numbers: FA followed by eight letters and digits. */
const FAA_REGISTRATION = /^FA[0-9A-Z]{8}$/i;

export function briefing(input: BriefingInput) {
  const statuses: Record<string, string[]> = {};
  for (const a of input.authorizations)
    statuses[a.authority.id] = [...(statuses[a.authority.id] ?? []), a.status];
  return {
    color: input.color,
    advisories: input.advisories,
    rulesets: input.rulesets.map((ruleset) => ({
      id: ruleset.id,
      rules: ruleset.rules.map((rule) => {
        const triggeredColors = rule.triggers.flatMap((trigger) =>
          input.advisories.filter((a) => triggerMatches(trigger, a)).map(() => trigger.color),
        );
        const status: RuleStatus = ruleStatus(rule, {
          features: input.features,
          triggeredColors,
          authorizations: statuses,
        });
        return { id: rule.id, short_text: rule.short_text, description: rule.description, status };
      }),
    })),
    validations: input.authorizations.length > 0 ? laancValidations(input.pilot) : [],
    // Before submission nothing has been asked: say what submitting will bring.
    authorizations: input.submitted
      ? input.authorizations
      : input.authorizations.map((a) => ({
          ...a,
          status: "not_requested" as const,
          message: `Submitting the plan requests this; expected: ${a.status}. ${a.message}`,
        })),
  };
}

/** What LAANC needs of the pilot: a phone the FAA can call, and the aircraft's registration. */
function laancValidations(pilot: PilotContact): Validation[] {
  const authority = { ...LAANC_AUTHORITY };
  const registration =
    typeof pilot.faaRegistrationNumber === "string" ? pilot.faaRegistrationNumber.trim() : "";
  return [
    {
      feature: {
        code: "phone_number",
        description: "A verified phone number where the FAA can reach the pilot",
      },
      ...(pilot.phone === null
        ? { status: "missing" as const, message: "Add a phone number to the pilot profile and verify it" }
        : pilot.phoneVerified
          ? { status: "valid" as const, message: "Verified" }
          : {
              status: "unverified" as const,
              message: "Verify the phone number with send_token and verify_token",
            }),
      authority,
    },
    {
      feature: {
        code: "faa_registration_number",
        description: "The FAA registration number (user_metadata)",
      },
      ...(registration === ""
        ? {
            status: "missing" as const,
            message: "Add user_metadata.faa_registration_number to the pilot profile",
          }
        : FAA_REGISTRATION.test(registration)
          ? { status: "valid" as const, message: "Present" }
          : {
              status: "invalid" as const,
              message: "An FAA registration number is FA followed by 8 letters or digits",
            }),
      authority,
    },
  ];
}
