import { and, desc, eq } from "drizzle-orm";
import { outbox, pilots } from "../../schema";
import type { Db } from "../env";
import { isoTime } from "../lib/time";
import type { DeliveryProvider } from "./provider";

/** Development delivery: the message is stored and read back through GET /dev/v1/outbox. */
export function outboxProvider(db: Db): DeliveryProvider {
  return {
    async deliver({ pilotId, channel, to, code }) {
      await db
        .insert(outbox)
        .values({ pilotId, channel, destination: to, token: code, createdAt: Date.now() });
    },
  };
}

const OUTBOX_PAGE = 100;

/** The pilot's newest messages first, only for a pilot of the calling account. */
export async function readOutbox(db: Db, accountId: string, pilotId: string) {
  const rows = await db
    .select({
      pilotId: outbox.pilotId,
      channel: outbox.channel,
      to: outbox.destination,
      token: outbox.token,
      createdAt: outbox.createdAt,
    })
    .from(outbox)
    .innerJoin(pilots, eq(pilots.id, outbox.pilotId))
    .where(and(eq(outbox.pilotId, pilotId), eq(pilots.accountId, accountId)))
    .orderBy(desc(outbox.id))
    .limit(OUTBOX_PAGE);
  return rows.map((r) => ({
    pilot_id: r.pilotId,
    channel: r.channel,
    to: r.to,
    token: r.token,
    created_at: isoTime(r.createdAt),
  }));
}
