import { parseTime } from "../lib/time";
import { type Checked, checked, problem } from "./problem";

/** How far ahead of the service's clock a pilot's agree date may be (a phone's clock drifts). */
export const AGREE_DATE_SKEW_MS = 5 * 60_000;

/**
 * The date a pilot agreed, as the Swift SDK sends it (`agree_date`, `yyyy-MM-dd'T'HH:mm:ss.SSSZ`:
 * `2026-11-29T03:04:05.678+0000`, Constants.swift 82) or any ISO 8601 time with an offset; absent
 * means now. Not after now (beyond clock skew): nobody agrees in the future.
 */
export function agreeDate(value: unknown, now: number): Checked<number> {
  if (value === undefined || value === null) return checked(now);
  const ms = typeof value === "string" ? parseTime(value, now) : undefined;
  if (ms === undefined)
    return problem("agree_date", "an ISO 8601 time with an offset, such as 2026-11-29T03:04:05.678+0000");
  if (ms > now + AGREE_DATE_SKEW_MS) return problem("agree_date", "must not be in the future");
  return checked(ms);
}

/**
 * An agreement's Markdown as plain text (`with_markdown=false`): headings, emphasis, code marks and
 * list bullets dropped, links written `text (url)`; paragraphs and line breaks kept.
 */
export function plainText(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s{0,3}>\s?/, "")
        .replace(/^(\s*)[-*+]\s+/, "$1• ")
        .replace(/!?\[([^\]]*)\]\(([^)\s]+)[^)]*\)/g, (_m, text: string, url: string) =>
          text && text !== url ? `${text} (${url})` : url,
        )
        .replace(/(\*\*|__)(.+?)\1/g, "$2")
        .replace(/(^|[^\w*])[*_]([^*_\n]+)[*_](?=[^\w*]|$)/g, "$1$2")
        .replace(/`([^`]+)`/g, "$1"),
    )
    .join("\n")
    .trim();
}

const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;
const MARGIN = 72;
const FONT_SIZE = 11;
const LEADING = 15;
/** Helvetica's average advance at 11 pt is about 5.5 pt: 84 characters fill the 468 pt line. */
const CHARS_PER_LINE = 84;
const LINES_PER_PAGE = Math.floor((PAGE_HEIGHT - 2 * MARGIN) / LEADING);

/**
 * The agreement as a PDF (1.4, Helvetica in WinAnsi, US Letter, word-wrapped and paged), the file
 * the Swift SDK's `getAgreementPDF` hands to the app. Characters outside Latin-1 print as `?`.
 */
export function agreementPdf(title: string, version: string, markdown: string): Uint8Array {
  const lines = [`${title} (version ${version})`, "", ...wrap(plainText(markdown), CHARS_PER_LINE)];
  const pages: string[][] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_PAGE) pages.push(lines.slice(i, i + LINES_PER_PAGE));
  if (pages.length === 0) pages.push([]);

  // Objects: 1 catalog, 2 page tree, 3 font, then a page and its content stream per page.
  const objects: string[] = [];
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(" ");
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  pages.forEach((page, i) => {
    const text = page.map((line, n) => `${n === 0 ? "" : "T* "}(${pdfString(line)}) Tj`).join("\n");
    const stream = `BT /F1 ${FONT_SIZE} Tf ${LEADING} TL ${MARGIN} ${PAGE_HEIGHT - MARGIN} Td\n${text}\nET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`,
    );
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });

  // Every character is Latin-1 (pdfString), so a string's length is its length in bytes.
  let body = "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n";
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return latin1Bytes(body);
}

/** Lines of at most `width` characters, broken at spaces (a longer word is cut). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      for (let piece = word; piece.length > 0; piece = piece.slice(width)) {
        const part = piece.slice(0, width);
        if (line && line.length + 1 + part.length > width) {
          out.push(line);
          line = part;
        } else line = line ? `${line} ${part}` : part;
      }
    }
    out.push(line);
  }
  return out;
}

/** A PDF literal string's content: Latin-1 only, with `\`, `(` and `)` escaped. */
function pdfString(line: string): string {
  return [...line]
    .map((ch) => {
      const code = ch.codePointAt(0)!;
      if (ch === "•") return "\u0095"; // WinAnsi's bullet
      if (code < 0x20 || code > 0xff) return "?";
      return ch === "\\" || ch === "(" || ch === ")" ? `\\${ch}` : ch;
    })
    .join("");
}

function latin1Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}
