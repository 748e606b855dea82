import type { DrizzleD1Database } from "drizzle-orm/d1";
import type * as schema from "../schema";
import type { SdkDialect } from "./domain/sdkDialect";

/**
 * Bindings from wrangler.toml, .dev.vars and `wrangler secret put`. wrangler.toml's part is also
 * generated as `Cloudflare.Env` (`npm run types` → worker-configuration.d.ts, kept current by
 * `npm run check`); the tests' `Cloudflare.Env` extends this interface, so the two must agree.
 */
export interface Bindings {
  DB: D1Database;
  ELEVATION: R2Bucket;
  ENVIRONMENT: string;
  RATE_LIMIT_PER_MINUTE: string;
  /** "off" lifts the per-account limit on expensive work (middleware/accountWork.ts): benchmarks only. */
  ACCOUNT_WORK_LIMIT?: string;
  /** Workers Rate Limiting (wrangler.toml `[[ratelimits]]`); absent, the isolate's bucket limits alone. */
  API_RATE_LIMIT?: RateLimit;
  JWT_ISSUER: string;
  /** ES256 private key as a JWK (JSON string): `wrangler secret put JWT_PRIVATE_KEY`. */
  JWT_PRIVATE_KEY: string;
  /** Twilio-shaped SMS provider; unset outside production means SMS cannot be sent. */
  SMS_API_URL?: string;
  SMS_ACCOUNT_SID?: string;
  SMS_AUTH_TOKEN?: string;
  SMS_FROM?: string;
  /** Resend-shaped email API (URL defaults to Resend's); unset outside production means no email. */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
  /**
   * Deep link (spec 4.7): the outer link's address (empty: this service's own /deeplink/v1/open)
   * and the app identities, passed on verbatim.
   */
  DEEPLINK_BASE_URL: string;
  /** Where `/create_flight/v1/` is served; empty means this service's own origin (its web page). */
  DEEPLINK_APP_LINK_BASE: string;
  DEEPLINK_APN: string;
  DEEPLINK_ISI: string;
  DEEPLINK_IBI: string;
  DEEPLINK_OFL: string;
  DEEPLINK_PT: string;
  /** Apple team id: with DEEPLINK_IBI, /.well-known/apple-app-site-association (universal links). */
  DEEPLINK_APPLE_TEAM_ID?: string;
  /** SHA-256 fingerprints of the Android app's signing certificates (comma list): /.well-known/assetlinks.json. */
  DEEPLINK_ANDROID_SHA256?: string;
  /**
   * An operator's raster basemap under both pages' maps: an XYZ tile URL template
   * (`https://tiles.example/{z}/{x}/{y}.png`) and its data's attribution. Unset: no basemap.
   */
  MAP_RASTER_TILES?: string;
  MAP_RASTER_ATTRIBUTION?: string;
  /**
   * An operator's vector basemap: the R2 key, in the ELEVATION bucket, of a PMTiles archive (a
   * Protomaps extract, or `npm run basemap:build`'s), served at /maps/v1/basemap and drawn by
   * MapLibre GL on both pages where WebGL works. Unset or empty: no vector basemap.
   */
  MAP_PMTILES_KEY?: string;
  /** Who runs this copy, named on the front page (`/`); unset: the host name. */
  OPERATOR_NAME?: string;
  /**
   * "true" lets user-set outbound URLs (webhooks, OpenID providers) reach this machine (localhost,
   * 127.0.0.1, [::1]) when ENVIRONMENT is development; ignored in any other mode (domain/outboundUrl.ts).
   */
  OUTBOUND_ALLOW_LOOPBACK?: string;
  /**
   * The application (its public id, `app_…`) of SDK sign-ins that name none: no API key, no `client_id`
   * of a known client, no realm that is an application's public id (services/loginApplication.ts).
   */
  SDK_LOGIN_APPLICATION?: string;
  /** Origins allowed to call the API from a browser (CORS): a comma list, or `*`. */
  CORS_ALLOWED_ORIGINS: string;
  /** Base64 of 32 bytes: seals telemetry session keys at rest (AES-GCM). `wrangler secret put`. */
  TELEMETRY_MASTER_KEY?: string;
  /** The telemetry relay's credential for /internal/v1 (`Authorization: Bearer …`). `wrangler secret put`. */
  RELAY_SECRET?: string;
  /**
   * The traffic broker's position feed (relay/traffic/, docs/traffic.md), e.g. `https://relay.example:8885`:
   * each flight's latest position is pushed there at most once a second. Several brokers behind one
   * MQTT address: their feeds separated by commas, each gets every push. Unset: no traffic from flights.
   */
  TRAFFIC_FEED_URL?: string;
  /** The traffic broker's MQTT-over-WebSocket URL for the live page's nearby traffic (`wss://…/mqtt`). */
  TRAFFIC_WS_URL?: string;
  /** Weather provider (`openweathermap`: One Call API 3.0) and its key; unset means no weather (503). */
  WEATHER_PROVIDER?: string;
  WEATHER_API_KEY?: string;
  /** The provider's endpoint, for a proxy; default its public one. */
  WEATHER_API_URL?: string;
  /**
   * Where Remote ID ISAs are registered (worker/services/ridDss.ts): unset, this deployment's own
   * F3411 DSS; another DSS's `/rid/v2` base; `none` for nowhere. RID_USS_BASE_URL is this service's
   * `/rid/v2` as display providers reach it (default PUBLIC_URL's).
   */
  RID_DSS_BASE_URL?: string;
  RID_USS_BASE_URL?: string;
  /**
   * The ecosystem authority's OAuth token endpoint (client credentials) for every call to another
   * USS or DSS, and this service's client there (worker/services/ussAuthority.ts).
   */
  USS_AUTH_TOKEN_URL?: string;
  USS_AUTH_CLIENT_ID?: string;
  USS_AUTH_CLIENT_SECRET?: string;
  /** InterUSS interfaces (worker/interuss/auth.ts): the token authority's JWK Set as JSON, or its URL. */
  INTERUSS_PUBLIC_KEYS?: string;
  INTERUSS_JWKS_URL?: string;
  /** Required `iss` of InterUSS tokens; unset accepts any issuer of a trusted key. */
  INTERUSS_ISSUER?: string;
  /** Accepted `aud` values (comma list); unset means PUBLIC_URL's host name. */
  INTERUSS_AUDIENCE?: string;
  /**
   * The service's public address (`https://windsock.example.com`): every link, redirect,
   * `redirect_uri` and tile URL it builds, and the InterUSS audience. Required outside development
   * (503 naming it); in development, unset, the request's own origin.
   */
  PUBLIC_URL?: string;
  /** Airspace feeds (wrangler.toml, worker/domain/airspace/feeds/sources.ts): which run, from where, how much per tick. */
  AIRSPACE_FEEDS?: string;
  AIRSPACE_FEED_URL_FAA_TFR?: string;
  AIRSPACE_FEED_URL_FAA_UAS_FACILITY_MAP?: string;
  AIRSPACE_FEED_URL_FAA_CLASS_AIRSPACE?: string;
  AIRSPACE_FEED_URL_FAA_SPECIAL_USE_AIRSPACE?: string;
  AIRSPACE_FEED_URL_FAA_NATIONAL_SECURITY_UAS?: string;
  AIRSPACE_SYNC_REQUESTS_PER_RUN?: string;
  AIRSPACE_SYNC_PAGE_SIZE?: string;
  /**
   * One Durable Object per flight holds its telemetry records (worker/telemetry/). Typed as
   * wrangler generates it from wrangler.toml (worker-configuration.d.ts), so this file imports no
   * class that imports it back.
   */
  FLIGHT_TELEMETRY: Cloudflare.Env["FLIGHT_TELEMETRY"];
  /** One Durable Object per account counts its live streams across flights (telemetry/accountStreams.ts). */
  ACCOUNT_STREAMS: Cloudflare.Env["ACCOUNT_STREAMS"];
  /** The F3411-22a DSS's one Durable Object (worker/dss/ridDss.ts). */
  RID_DSS: Cloudflare.Env["RID_DSS"];
  /** The F3548-21 DSS's one Durable Object (worker/dss/scdDss.ts). */
  SCD_DSS: Cloudflare.Env["SCD_DSS"];
}

export interface Account {
  id: string;
  publicId: string;
  name: string;
  rateLimitPerMinute: number | null;
  keyId: string;
}

/** Drizzle over a D1 binding, which prepared reads (store/prepared.ts) batch directly. */
export type Db = DrizzleD1Database<typeof schema> & { $client: D1Database };

export interface Variables {
  db: Db;
  account: Account;
  /** The pilot id (token `sub`) once `requireToken` or `optionalToken` has run. */
  pilotId: string | undefined;
  /** A provider token's `sub`, which the SDKs use as the pilot's id (middleware/token.ts `pilotIdOf`). */
  pilotSubject?: string;
  /** When that token expires (UNIX seconds): open streams end then. */
  tokenExpiresAt?: number;
  /** Which SDK's words the answer uses (middleware/dialect.ts). */
  dialect: SdkDialect;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
