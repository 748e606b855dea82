import { describe, expect, it } from "vitest";
import {
  registrationCheckCharacter,
  validOperatorRegistrationNumber,
  validSerialNumber,
} from "../../worker/domain/uspaceAuthorisation";

describe("U-space flight authorisation identifiers", () => {
  it("reads ANSI/CTA-2063-A serial numbers: MFR code, length code, exactly that many characters", () => {
    expect(validSerialNumber("1ABCB2A1B2C3D4E5")).toBe(true);
    expect(validSerialNumber("1ABC3XYZ")).toBe(true);
    expect(validSerialNumber("My serial number")).toBe(false);
    // The length code says 4, 11 follow.
    expect(validSerialNumber("1ABC42A1B2C3D4E5")).toBe(false);
    // O and I are not code points.
    expect(validSerialNumber("1OBC3XYZ")).toBe(false);
  });

  it("reads EN 4709-002 operator registration numbers with their check character", () => {
    expect(registrationCheckCharacter("87astrdge12k", "xyz")).toBe("8");
    expect(validOperatorRegistrationNumber("FIN87astrdge12k8-xyz")).toBe(true);
    expect(validOperatorRegistrationNumber("FIN87astrdge12k9-xyz")).toBe(false);
    expect(validOperatorRegistrationNumber("FIN87astrdge12k8-xya")).toBe(false);
    expect(validOperatorRegistrationNumber("FIN87astrdge12k8xyz")).toBe(false);
    expect(validOperatorRegistrationNumber("not an operator id")).toBe(false);
  });
});
