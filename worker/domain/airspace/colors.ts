/** Advisory colors, least to most restrictive (spec 2.5, CONTRACT §7). */
export const COLORS = ["green", "yellow", "orange", "red"] as const;
export type Color = (typeof COLORS)[number];

export function colorRank(color: Color): number {
  return COLORS.indexOf(color);
}

/** The most restrictive of the colors; green when there are none. */
export function highestColor(colors: Iterable<Color>): Color {
  let highest: Color = "green";
  for (const color of colors) if (colorRank(color) > colorRank(highest)) highest = color;
  return highest;
}
