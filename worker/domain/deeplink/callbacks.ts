import { registerHint } from "./firstParty";

/** Authorization result of spec 2.6, as handed back to the partner app in the callback. */
export interface Authorization {
  description: string;
  status: "pending" | "accepted" | "rejected" | "not_requested" | "cancelled";
  message: string;
  authority: { id: string; name: string };
}

const MAX_URL_LENGTH = 2048;
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Why `url` cannot be registered as a callback prefix, or null when it can: https only (plain http
 * for localhost in development), no credentials, query or fragment, since a prefix names a place.
 */
export function callbackPrefixProblem(url: string, allowLocalHttp: boolean): string | null {
  const parsed = parseUrl(url);
  if (!parsed) return "must be an absolute URL such as https://app.example.com/callback";
  const problem = schemeProblem(parsed, allowLocalHttp);
  if (problem) return problem;
  if (parsed.search || parsed.hash || url.includes("?") || url.includes("#")) {
    return "a prefix has no query or fragment; register the URL up to its path";
  }
  return null;
}

/** The stored form of a prefix: scheme, host and port as the URL parser normalizes them, then the path. */
export function normalizePrefix(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/**
 * Why `callbackUrl` may not be redirected to, or null when it starts with one of the account's
 * prefixes: same origin exactly, and the path at a segment boundary, so `https://a.com/cb` allows
 * `https://a.com/cb/done?x=1` but neither `https://a.com/cbx` nor `https://a.com.evil.net/cb`.
 */
export function callbackProblem(
  callbackUrl: string,
  prefixes: string[],
  allowLocalHttp: boolean,
  howToRegister = registerHint(""),
): string | null {
  const parsed = parseUrl(callbackUrl);
  if (!parsed) return "must be an absolute URL such as https://app.example.com/callback";
  const problem = schemeProblem(parsed, allowLocalHttp);
  if (problem) return problem;
  const allowed = prefixes.some((prefix) => {
    const base = parseUrl(prefix);
    return base !== null && base.origin === parsed.origin && pathWithin(parsed.pathname, base.pathname);
  });
  if (!allowed) {
    return `is not registered for this application; ${howToRegister}`;
  }
  return null;
}

function pathWithin(path: string, prefixPath: string): boolean {
  if (prefixPath.endsWith("/")) return path.startsWith(prefixPath);
  return path === prefixPath || path.startsWith(`${prefixPath}/`);
}

function schemeProblem(url: URL, allowLocalHttp: boolean): string | null {
  if (url.username || url.password) return "must not carry a user name or password";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && allowLocalHttp && LOCAL_HOSTS.has(url.hostname)) return null;
  return allowLocalHttp ? "must use https (http only for localhost)" : "must use https";
}

function parseUrl(text: string): URL | null {
  if (text.length > MAX_URL_LENGTH || !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return null;
  try {
    const url = new URL(text);
    return url.hostname ? url : null;
  } catch {
    return null;
  }
}

const CALLBACK_KEYS = new Set(["flight_id", "authorizations"]);

/**
 * `callback_url?flight_id=…&authorizations=…` (spec 4.7). Values are percent-encoded with
 * encodeURIComponent (never `+` for spaces: iOS and Android query readers do not decode it); the
 * callback's own query parameters and fragment are kept as they were, less any stale result keys.
 */
export function callbackRedirect(
  callbackUrl: string,
  flightId: string,
  authorizations: Authorization[],
): string {
  const hashAt = callbackUrl.indexOf("#");
  const fragment = hashAt >= 0 ? callbackUrl.slice(hashAt) : "";
  const beforeFragment = hashAt >= 0 ? callbackUrl.slice(0, hashAt) : callbackUrl;
  const queryAt = beforeFragment.indexOf("?");
  const base = queryAt >= 0 ? beforeFragment.slice(0, queryAt) : beforeFragment;
  const kept = (queryAt >= 0 ? beforeFragment.slice(queryAt + 1) : "")
    .split("&")
    .filter((pair) => pair !== "" && !CALLBACK_KEYS.has(decodeKey(pair)));
  const added = [
    `flight_id=${encodeURIComponent(flightId)}`,
    `authorizations=${encodeURIComponent(JSON.stringify(authorizations))}`,
  ];
  return `${base}?${[...kept, ...added].join("&")}${fragment}`;
}

function decodeKey(pair: string): string {
  const key = pair.split("=")[0]!;
  try {
    return decodeURIComponent(key.replace(/\+/g, " "));
  } catch {
    return key;
  }
}
