/** The international foot: altitudes, ceilings and lengths given in feet become meters by it. */
export const METERS_PER_FOOT = 0.3048;
