import { METERS_PER_FOOT } from "../units";
import { type AuthorizationCondition, LAANC_AUTHORITY, type Ruleset } from "./rules";
import type { AuthorizationStatus } from "./types";

export type { AuthorizationStatus };

/** Spec 2.6 authorization objects. */
export interface Authorization {
  description: string;
  status: AuthorizationStatus;
  message: string;
  authority: { id: string; name: string };
}

/** An airport's facility map as it lies under a flight area: the ceilings of the cells the area touches. */
export interface FacilityMapOverArea {
  airportId: string;
  icao: string | null;
  name: string;
  laanc: boolean;
  ceilingsFt: number[];
}

export interface LaancRequest {
  maxAltitudeAgl: number;
  startTime: number;
  now: number;
  /** The flight's rulesets; only those with a LAANC rule make requests. */
  rulesets: Pick<Ruleset, "rules">[];
  facilityMaps: FacilityMapOverArea[];
  /** Names of controlled airspace over the area that no facility map covers. */
  uncoveredAirspace: string[];
}

const LAANC_MAX_FT = 400;
/** LAANC takes requests at most 90 days before the flight. */
const LAANC_LEAD_DAYS = 90;
/** A further-coordination request must reach the FAA at least 72 hours before the flight. */
const FURTHER_COORDINATION_LEAD_HOURS = 72;

/**
 * CONTRACT §7: per airport, the lowest facility-map ceiling over the whole flight area decides. At or
 * below it the request is accepted at once; above it, up to 400 ft, it goes to further coordination
 * (pending) where the pilot's rules allow that and the flight is at least 72 hours away (the FAA's
 * lead time for it), and is rejected otherwise.
 */
export function decideLaanc(request: LaancRequest): Authorization[] {
  const conditions = request.rulesets
    .flatMap((r) => r.rules.map((rule) => rule.condition))
    .filter(isLaancCondition);
  if (conditions.length === 0) return [];
  const furtherCoordination = conditions.some((c) => c.further_coordination === true);
  const altitudeFt = request.maxAltitudeAgl / METERS_PER_FOOT;
  const tooEarly = request.startTime - request.now > LAANC_LEAD_DAYS * 86_400_000;
  const coordinationInTime = request.startTime - request.now >= FURTHER_COORDINATION_LEAD_HOURS * 3_600_000;

  const decisions = request.facilityMaps
    .filter((map) => map.ceilingsFt.length > 0)
    .map((map): Authorization => {
      const ceilingFt = Math.min(...map.ceilingsFt);
      const description = `LAANC authorization at ${map.icao ?? map.airportId} ${map.name} up to ${Math.round(altitudeFt)} ft AGL`;
      const answer = (status: AuthorizationStatus, message: string) => ({
        description,
        status,
        message,
        authority: { ...LAANC_AUTHORITY },
      });
      if (!map.laanc)
        return answer(
          "not_requested",
          `${map.name} does not take LAANC requests; apply through FAADroneZone`,
        );
      if (tooEarly)
        return answer(
          "not_requested",
          `LAANC takes requests at most ${LAANC_LEAD_DAYS} days ahead; submit again closer to the flight`,
        );
      if (request.maxAltitudeAgl <= ceilingFt * METERS_PER_FOOT + 1e-6)
        return answer(
          "accepted",
          `Authorized automatically: the lowest facility-map ceiling over the area is ${ceilingFt} ft`,
        );
      if (altitudeFt > LAANC_MAX_FT + 1e-6)
        return answer(
          "rejected",
          `LAANC authorizes at most ${LAANC_MAX_FT} ft AGL; lower the flight or apply through FAADroneZone`,
        );
      if (furtherCoordination && !coordinationInTime)
        return answer(
          "rejected",
          `Above the facility-map ceiling of ${ceilingFt} ft, and further coordination needs the request ${FURTHER_COORDINATION_LEAD_HOURS} hours before the flight; fly at or below ${ceilingFt} ft or plan later`,
        );
      if (furtherCoordination)
        return answer(
          "pending",
          `Above the facility-map ceiling of ${ceilingFt} ft: sent to the FAA for further coordination`,
        );
      return answer(
        "rejected",
        `Above the facility-map ceiling of ${ceilingFt} ft, which your rules do not let you exceed; fly at or below it`,
      );
    });
  const manual = request.uncoveredAirspace.map(
    (name): Authorization => ({
      description: `Authorization for ${name}`,
      status: "not_requested",
      message: `No facility map covers ${name} here; request authorization through FAADroneZone`,
      authority: { ...LAANC_AUTHORITY },
    }),
  );
  return [...decisions, ...manual];
}

function isLaancCondition(condition: unknown): condition is AuthorizationCondition {
  return (
    typeof condition === "object" &&
    condition !== null &&
    (condition as AuthorizationCondition).authorization === LAANC_AUTHORITY.id
  );
}
