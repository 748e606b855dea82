/**
 * ASTM F3411-22a network Remote ID limits, as InterUSS `uas_standards` (astm/f3411/v22a/constants.py)
 * names them. The qualifier judges a Service Provider by these numbers.
 */

/** A view whose diagonal is longer than this is refused with 413. */
export const NetMaxDisplayAreaDiagonalKm = 7;
/** Above this diagonal a Display Provider shows clusters, not flights (a DP duty: NET0480). */
export const NetDetailsMaxDisplayAreaDiagonalKm = 2;
/** A flight appears while it has a position this recent; also the longest `recent_positions_duration`. */
export const NetMaxNearRealTimeDataPeriodSeconds = 60;
/** Telemetry at least this often must be served at least this often (the SP serves every record it holds). */
export const NetMinUasLocRefreshFrequencyHz = 1;
/** The Service Provider's answer times the qualifier measures (95th and 99th percentile). */
export const NetSpDataResponseTime95thPercentileSeconds = 1;
export const NetSpDataResponseTime99thPercentileSeconds = 3;

/** Table 1's "Invalid, No Value or Unknown" values. */
export const SpecialSpeed = 255;
export const MaxSpeed = 254.25;
export const SpecialVerticalSpeed = 63;
export const MaxAbsVerticalSpeed = 62;
export const SpecialTrackDirection = 361;
export const SpecialAltitude = -1000;

/** The qualifier's Earth (monitorlib geo: EARTH_CIRCUMFERENCE_KM), so that 7 km means the same to both. */
export const EARTH_CIRCUMFERENCE_KM = 40075;

/** OAuth scopes of F3411-22a and of the RID injection interface. */
export const RID_SCOPES = {
  displayProvider: "rid.display_provider",
  serviceProvider: "rid.service_provider",
  injectTestData: "rid.inject_test_data",
} as const;
