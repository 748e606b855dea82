import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export const pilots = sqliteTable(
  "pilots",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    userId: text("user_id").notNull(),
    username: text("username").notNull(),
    email: text("email"),
    firstName: text("first_name"),
    lastName: text("last_name"),
    pictureUrl: text("picture_url"),
    phone: text("phone"),
    userMetadata: text("user_metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    appMetadata: text("app_metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    phoneVerified: integer("phone_verified", { mode: "boolean" }).notNull(),
    emailVerified: integer("email_verified", { mode: "boolean" }).notNull(),
    /** How many flights the pilot has: kept with every flight insert and delete, so the pilot's own
     * flight list answers its total without counting thousands of rows. */
    flightCount: integer("flight_count").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("pilots_account_user").on(t.accountId, t.userId)],
);

export type VerificationChannel = "phone" | "email";

/** Every verification token sent: the newest unconsumed one is live; rows of the last hour cap sends. */
export const verificationTokens = sqliteTable(
  "verification_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    pilotId: text("pilot_id")
      .notNull()
      .references(() => pilots.id),
    channel: text("channel").$type<VerificationChannel>().notNull(),
    destination: text("destination").notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
    consumedAt: integer("consumed_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("verification_tokens_pilot").on(t.pilotId, t.channel, t.createdAt)],
);

/** Development delivery: messages that would have been sent, read by GET /dev/v1/outbox. */
export const outbox = sqliteTable(
  "outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    pilotId: text("pilot_id").notNull(),
    channel: text("channel").$type<VerificationChannel>().notNull(),
    destination: text("destination").notNull(),
    token: text("token").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("outbox_pilot").on(t.pilotId, t.createdAt)],
);
