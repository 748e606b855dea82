/** Geometries that tests of every area share; positions are [longitude, latitude]. */

/** A ring that crosses itself: every geometry check must refuse it. */
export const bowTie = {
  type: "Polygon",
  coordinates: [
    [
      [0, 0],
      [1, 1],
      [1, 0],
      [0, 1],
      [0, 0],
    ],
  ],
};
