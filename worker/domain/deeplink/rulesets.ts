/** The part of a ruleset (spec 2.4) that the page's choice depends on. */
export interface RulesetChoice {
  id: string;
  name: string;
  short_name?: string;
  description?: string;
  selection_type: "required" | "optional" | "pick1";
  default: boolean;
}

/**
 * What the page starts with: every required ruleset, one pick1 (the first preselected, else the
 * default) and the preselected optional ones, or without `ruleset_ids` the defaults.
 */
export function initialSelection(rulesets: RulesetChoice[], preselected: string[] | undefined): string[] {
  const wanted = (r: RulesetChoice) => (preselected ? preselected.includes(r.id) : r.default);
  const pick1 = rulesets.filter((r) => r.selection_type === "pick1");
  const chosenPick1 = pick1.find(wanted) ?? pick1.find((r) => r.default);
  return rulesets
    .filter((r) =>
      r.selection_type === "required" ? true : r.selection_type === "pick1" ? r === chosenPick1 : wanted(r),
    )
    .map((r) => r.id);
}

/** The pilot's choice made whole: required ones added, ids that do not apply here dropped. */
export function completeSelection(rulesets: RulesetChoice[], chosen: string[]): string[] {
  return rulesets.filter((r) => r.selection_type === "required" || chosen.includes(r.id)).map((r) => r.id);
}

/** Why the choice cannot be flown under, or null: exactly one pick1 when the area has any. */
export function selectionProblem(rulesets: RulesetChoice[], chosen: string[]): string | null {
  const pick1 = rulesets.filter((r) => r.selection_type === "pick1");
  if (pick1.length === 0) return null;
  const picked = pick1.filter((r) => chosen.includes(r.id));
  if (picked.length === 1) return null;
  const names = pick1.map((r) => r.name).join(", ");
  return picked.length === 0 ? `Choose one of: ${names}` : `Choose only one of: ${names}`;
}
