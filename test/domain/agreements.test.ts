import { describe, expect, it } from "vitest";
import { AGREE_DATE_SKEW_MS, agreeDate, agreementPdf, plainText } from "../../worker/domain/agreements";

describe("agreements", () => {
  const now = Date.parse("2026-11-29T03:00:00Z");

  it("reads the Swift SDK's agree_date (yyyy-MM-dd'T'HH:mm:ss.SSSZ, Constants.swift 82), now when absent", () => {
    expect(agreeDate("2026-11-29T02:59:58.123+0000", now)).toEqual({ ok: true, value: now - 1877 });
    expect(agreeDate(undefined, now)).toEqual({ ok: true, value: now });
    expect(agreeDate(new Date(now + AGREE_DATE_SKEW_MS).toISOString(), now).ok).toBe(true);
    const future = agreeDate(new Date(now + AGREE_DATE_SKEW_MS + 1000).toISOString(), now);
    expect(future.ok ? null : future.problems[0]).toEqual({
      field: "agree_date",
      message: "must not be in the future",
    });
    for (const bad of ["yesterday", "2026-11-29", 1764385200000])
      expect(agreeDate(bad, now).ok, String(bad)).toBe(false);
  });

  it("plain text keeps paragraphs and link targets, drops Markdown marks", () => {
    expect(
      plainText("## Title\r\n\r\n*Fly* **low**, `always`; [rules](https://x.example/r)\n> quoted\n* a\n"),
    ).toBe("Title\n\nFly low, always; rules (https://x.example/r)\nquoted\n• a");
    expect(plainText("snake_case_name stays")).toBe("snake_case_name stays");
  });

  it("a PDF pages long texts and escapes what PDF strings need", () => {
    const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i} (with parentheses) \\ and ✈.`).join(
      "\n\n",
    );
    const text = new TextDecoder("latin1").decode(agreementPdf("Terms", "2.0", long));
    expect(text).toContain("/Count 6 ");
    expect(text).toContain("(Paragraph 0 \\(with parentheses\\) \\\\ and ?.) Tj");
    const xref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(xref, xref + 4)).toBe("xref");
  });
});
