import { agreeDate, agreementPdf, plainText } from "../domain/agreements";
import type { Db } from "../env";
import { notFound, problemError } from "../lib/errors";
import { isoTime } from "../lib/time";
import {
  type Agreement,
  acceptanceOf,
  agreementsOfAuthority,
  findAgreement,
  recordAcceptance,
} from "../store/agreements";

/**
 * Agreements as the SDKs read them (AirMapSDK-Swift `Source/Core/Models/Agreements/`): a summary
 * (`id`, `version`, `type`), the document's text, and a pilot's acceptance of the current version.
 */

export function agreementSummary(a: Agreement) {
  return { id: a.id, version: a.version, type: a.type, authority_id: a.authorityId, title: a.title };
}

export async function authorityAgreements(db: Db, authorityId: string) {
  return (await agreementsOfAuthority(db, authorityId)).map(agreementSummary);
}

/** The agreement with its text in Markdown, or as plain text. */
export async function agreementDocument(db: Db, id: string, markdown: boolean) {
  const agreement = await existing(db, id);
  return {
    ...agreementSummary(agreement),
    document: markdown
      ? { text: agreement.text, format: "markdown" as const }
      : { text: plainText(agreement.text), format: "text" as const },
  };
}

/** The agreement as a PDF, with a file name made of its id and version. */
export async function agreementFile(db: Db, id: string) {
  const agreement = await existing(db, id);
  const safe = (s: string) => s.replace(/[^\w.-]/g, "_");
  return {
    bytes: agreementPdf(agreement.title, agreement.version, agreement.text),
    fileName: `${safe(agreement.id)}-${safe(agreement.version)}.pdf`,
  };
}

/** Whether the pilot has agreed to the agreement's current version. */
export async function agreementStatus(db: Db, pilotId: string, id: string) {
  const agreement = await existing(db, id);
  return statusOf(agreement, await acceptanceOf(db, pilotId, agreement.id, agreement.version));
}

/** Records the pilot's acceptance of the current version, dated as the app says (`agree_date`). */
export async function agreeTo(db: Db, pilotId: string, id: string, date: unknown, now = Date.now()) {
  const agreement = await existing(db, id);
  const agreedAt = agreeDate(date, now);
  if (!agreedAt.ok) throw problemError(agreedAt.problems);
  const acceptance = { pilotId, agreementId: agreement.id, version: agreement.version };
  await recordAcceptance(db, { ...acceptance, agreedAt: agreedAt.value }, now);
  return statusOf(agreement, await acceptanceOf(db, pilotId, agreement.id, agreement.version));
}

async function existing(db: Db, id: string): Promise<Agreement> {
  const agreement = await findAgreement(db, id);
  if (!agreement) throw notFound(`Agreement ${id}`);
  return agreement;
}

function statusOf(a: Agreement, agreedAt: number | null) {
  return {
    has_agreed_to_latest_version: agreedAt !== null,
    version: a.version,
    agreed_at: agreedAt === null ? null : isoTime(agreedAt),
  };
}
