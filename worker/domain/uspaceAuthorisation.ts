/**
 * The U-space flight authorisation data of a plan (Regulation (EU) 2021/664 Annex IV, as the InterUSS
 * flight_planning interface carries it in `uspace_flight_authorisation`), checked as a flight
 * authorisation service must before planning: the UAS serial number in the ANSI/CTA-2063-A format,
 * the operator registration number in the EN 4709-002 format with its check character, and the
 * other fields within their ranges. Each problem is a sentence; none means the data is valid.
 */

/** ANSI/CTA-2063-A code points: digits and capitals without O and I. */
const SERIAL_CODE_POINTS = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ";
/** The length code (fifth character): 1–9, A–F for 10–15 characters of manufacturer's serial. */
const SERIAL_LENGTH_CODES = "123456789ABCDEF";

/** MFR code (4), length code (1), then exactly that many characters, all from the code points. */
export function validSerialNumber(serial: string): boolean {
  if (serial.length < 6) return false;
  if (![...serial].every((c) => SERIAL_CODE_POINTS.includes(c))) return false;
  const length = SERIAL_LENGTH_CODES.indexOf(serial[4]!) + 1;
  return length > 0 && serial.length === 5 + length;
}

/** EN 4709-002 code points of the base id, check character and secret. */
const REGISTRATION_CODE_POINTS = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * `PPPBBBBBBBBBBBBC-SSS`: a 3-letter country prefix, a 12-character base id, one check character,
 * a dash and a 3-character secret. The check character is a Luhn mod 36 over base id and secret
 * (weights 2, 1, 2, … from the left; each product's base-36 digits summed).
 */
export function validOperatorRegistrationNumber(id: string): boolean {
  if (!/^[A-Z]{3}[0-9a-z]{12}[0-9a-z]-[0-9a-z]{3}$/.test(id)) return false;
  return id[15] === registrationCheckCharacter(id.slice(3, 15), id.slice(17));
}

export function registrationCheckCharacter(baseId: string, secret: string): string {
  const n = REGISTRATION_CODE_POINTS.length;
  let sum = 0;
  let weight = 2;
  for (const c of baseId + secret) {
    const product = REGISTRATION_CODE_POINTS.indexOf(c) * weight;
    sum += Math.floor(product / n) + (product % n);
    weight = 3 - weight;
  }
  return REGISTRATION_CODE_POINTS[(n - (sum % n)) % n]!;
}

const MAX_ENDURANCE_MINUTES = 10 * 24 * 60;

/** What is wrong with the data, one sentence per field; empty when it may be planned. */
export function flightAuthorisationProblems(data: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const text = (key: string) => (typeof data[key] === "string" ? (data[key] as string) : "");
  if (!validSerialNumber(text("uas_serial_number")))
    problems.push("uas_serial_number is not an ANSI/CTA-2063-A serial number");
  if (!validOperatorRegistrationNumber(text("operator_id")))
    problems.push(
      "operator_id is not an EN 4709-002 operator registration number (or its check character is wrong)",
    );
  if (data.uas_class === "Other" || typeof data.uas_class !== "string")
    problems.push("uas_class is not a UAS class");
  if (data.operation_category === "Unknown" || typeof data.operation_category !== "string")
    problems.push("operation_category is not an operation category");
  const endurance = data.endurance_minutes;
  if (typeof endurance !== "number" || endurance < 1 || endurance > MAX_ENDURANCE_MINUTES)
    problems.push(`endurance_minutes must be 1 to ${MAX_ENDURANCE_MINUTES}`);
  const listed = (key: string) =>
    Array.isArray(data[key]) && (data[key] as unknown[]).some((m) => typeof m === "string" && m.length > 0);
  if (!listed("connectivity_methods")) problems.push("connectivity_methods lists none");
  if (!listed("identification_technologies")) problems.push("identification_technologies lists none");
  const url = data.emergency_procedure_url;
  if (typeof url !== "string" || !URL.canParse(url)) problems.push("emergency_procedure_url is not a URL");
  return problems;
}
