import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * The OpenID Connect provider an account trusts for its pilots (`npm run pilots:provider`): its
 * tokens are pilot tokens, and the SDK login routes pass password and refresh grants to it.
 */
export const identityProviders = sqliteTable("identity_providers", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  issuer: text("issuer").notNull(),
  /** Where the endpoints below were read from, when they were discovered. */
  discoveryUrl: text("discovery_url"),
  jwksUrl: text("jwks_url").notNull(),
  tokenEndpoint: text("token_endpoint"),
  authorizationEndpoint: text("authorization_endpoint"),
  /** The `aud` its pilot tokens carry (usually the client id). */
  audience: text("audience").notNull(),
  /** The claim naming the user (`sub` unless the provider's stable id lives elsewhere). */
  userClaim: text("user_claim").notNull().default("sub"),
  clientId: text("client_id"),
  /** For confidential clients; sent only to the token endpoint. */
  clientSecret: text("client_secret"),
  /** Development only: the provider may live on 127.0.0.1 (the local one of `npm start`). */
  allowLoopback: integer("allow_loopback", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Single-use, short-lived sign-ins for one pilot, put in a deep link by its builder (called with the
 * pilot's token); stored as hashes, so a database read does not reveal a usable grant. Deleted once
 * expired (the Cron Trigger).
 */
export const pilotLinkGrants = sqliteTable(
  "pilot_link_grants",
  {
    grantHash: text("grant_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    pilotId: text("pilot_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [index("pilot_link_grants_expires_at").on(t.expiresAt)],
);

/**
 * The links page sign-ins return to, once per link (by the SHA-256 of its query): a flood of sign-ins
 * of one link stores it once; kept as long as the last sign-in of it.
 */
export const signInLinks = sqliteTable(
  "sign_in_links",
  {
    linkHash: text("link_hash").primaryKey(),
    linkQuery: text("link_query").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sign_in_links_expires_at").on(t.expiresAt)],
);

/**
 * The deep-link page's authorization-code sign-ins in progress: state, nonce and PKCE verifier, the
 * link by reference and the hash of the cookie of the browser that started it. Deleted when used
 * and, once expired, by the Cron Trigger.
 */
export const signInStates = sqliteTable(
  "sign_in_states",
  {
    state: text("state").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    linkHash: text("link_hash").notNull(),
    browserHash: text("browser_hash").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sign_in_states_expires_at").on(t.expiresAt)],
);
