/** The part of a ruleset (spec 2.4) that the page's choice depends on. */
export interface RulesetChoice {
  id: string;
  name: string;
  short_name?: string;
  description?: string;
  selection_type: "required" | "optional" | "pick1";
  default: boolean;
  jurisdiction?: { id: number; name: string };
}

/** The pick1 rulesets of one jurisdiction: the pilot flies under exactly one of them. */
export interface Pick1Group {
  key: string;
  jurisdiction: string;
  rulesets: RulesetChoice[];
}

export function pick1Groups(rulesets: RulesetChoice[]): Pick1Group[] {
  const groups = new Map<string, Pick1Group>();
  for (const r of rulesets) {
    if (r.selection_type !== "pick1") continue;
    const key = String(r.jurisdiction?.id ?? 0);
    const group = groups.get(key) ?? { key, jurisdiction: r.jurisdiction?.name ?? "", rulesets: [] };
    group.rulesets.push(r);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * What the page starts with: every required ruleset, one pick1 per jurisdiction (the first
 * preselected, else the default) and the preselected optional ones; without `ruleset_ids`, the defaults.
 */
export function initialSelection(rulesets: RulesetChoice[], preselected: string[] | undefined): string[] {
  const wanted = (r: RulesetChoice) => (preselected ? preselected.includes(r.id) : r.default);
  const picks = pick1Groups(rulesets).flatMap((g) => {
    const firstPreselected = preselected?.map((id) => g.rulesets.find((r) => r.id === id)).find(Boolean);
    const pick = firstPreselected ?? g.rulesets.find((r) => r.default);
    return pick ? [pick.id] : [];
  });
  return rulesets
    .filter((r) =>
      r.selection_type === "required"
        ? true
        : r.selection_type === "pick1"
          ? picks.includes(r.id)
          : wanted(r),
    )
    .map((r) => r.id);
}

/** The pilot's choice made whole: required ones added, ids that do not apply here dropped. */
export function completeSelection(rulesets: RulesetChoice[], chosen: string[]): string[] {
  return rulesets.filter((r) => r.selection_type === "required" || chosen.includes(r.id)).map((r) => r.id);
}

/** Why the choice cannot be flown under, or null: exactly one pick1 in every jurisdiction that has them. */
export function selectionProblem(rulesets: RulesetChoice[], chosen: string[]): string | null {
  for (const group of pick1Groups(rulesets)) {
    const picked = group.rulesets.filter((r) => chosen.includes(r.id));
    if (picked.length === 1) continue;
    const names = group.rulesets.map((r) => r.name).join(", ");
    return picked.length === 0 ? `choose one of: ${names}` : `choose only one of: ${names}`;
  }
  return null;
}
