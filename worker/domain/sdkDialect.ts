/**
 * The one place that tells the original SDKs apart and keeps the few words they disagree on
 * (CONTRACT §11, docs/sdk-compatibility.md). Everything one value can serve goes to every client;
 * only what cannot is chosen here, per client, from the User-Agent each SDK's HTTP stack sends:
 *
 * - C++ platform SDK: `AirMap/<major>.<minor>.<patch>` (platform-sdk `src/airmap/net/http/user_agent.cpp`,
 *   set on every request in `net/http/boost/requester.cpp`).
 * - Android SDK: OkHttp's own `okhttp/<version>` (AirMapSDK-Android uses okhttp 3.14.7, `airmapsdk/build.gradle`;
 *   no interceptor in `networking/services/AirMapClient.java` sets a User-Agent, so OkHttp's bridge adds its own).
 * - Swift SDK: Alamofire's default `<app>/<version> (<bundle>; build:<n>; iOS <v>) Alamofire/<version>`
 *   (AirMapSDK-Swift `Source/Core/Clients/HTTPClient.swift` keeps Alamofire's `SessionManager` defaults).
 *
 * Any other client (curl, a browser, an app of its own) gets the default words, the C++ SDK's.
 */

export type SdkDialect = "cpp" | "android" | "swift";

export const DEFAULT_DIALECT: SdkDialect = "cpp";

export function dialectOf(userAgent: string | undefined): SdkDialect {
  if (!userAgent) return DEFAULT_DIALECT;
  if (/^okhttp\//i.test(userAgent)) return "android";
  if (/\bAlamofire\//.test(userAgent)) return "swift";
  return DEFAULT_DIALECT;
}

/**
 * The status of an authorization that submitting the plan would bring. The C++ SDK knows only
 * `accepted_upon_submission` (`src/airmap/evaluation.cpp`; anything else reads as `accepted`); the
 * Android SDK only `authorized_upon_submission` (`models/rules/AirMapAuthorization.java` 20–40;
 * anything else reads as REJECTED), and so does the Swift SDK (`Source/Core/Models/FlightPlan/
 * AirMapFlightBriefing.swift`, `Authorization.Status`; unknown → `.rejected`,
 * `Source/Core/Models/JSONSerialization.swift` `Authorization.init(map:)`).
 */
export function acceptedUponSubmission(
  dialect: SdkDialect,
): "accepted_upon_submission" | "authorized_upon_submission" {
  return dialect === "cpp" ? "accepted_upon_submission" : "authorized_upon_submission";
}
