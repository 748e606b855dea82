/** The units the SDKs read traffic in (feet, knots) against the metres and m/s Windsock keeps. */

export const METRES_PER_FOOT = 0.3048;
export const MS_PER_KNOT = 1852 / 3600;
export const METRES_PER_STATUTE_MILE = 1609.344;

export const feetOf = (metres: number) => metres / METRES_PER_FOOT;
export const metresOfFeet = (feet: number) => feet * METRES_PER_FOOT;
export const knotsOf = (metresPerSecond: number) => metresPerSecond / MS_PER_KNOT;
export const msOfKnots = (knots: number) => knots * MS_PER_KNOT;
