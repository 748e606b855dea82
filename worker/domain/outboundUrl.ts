import ipaddr from "ipaddr.js";

/**
 * Outbound URLs that a user sets (conformance webhooks, OpenID providers): the worker may send
 * requests only to the public internet. Refused, in every mode:
 * - IP literals outside public unicast: loopback, private (RFC 1918, IPv6 unique local), link-local
 *   (cloud metadata at 169.254.169.254), CGNAT, multicast, broadcast, unspecified, and reserved or
 *   documentation ranges; IPv6 outside the global unicast 2000::/3, and IPv6 forms that embed an IPv4
 *   address (mapped ::ffff:a.b.c.d, NAT64, 6to4, Teredo), which would reach that IPv4 address;
 * - names that no public DNS answers for: single labels (`intranet`), `localhost` and `*.localhost`,
 *   `.local` (mDNS), `.internal` (cloud metadata such as metadata.google.internal), `.home.arpa`.
 * The URL is parsed as `fetch` parses it (WHATWG), so the IPv4 spellings that resolve to an address
 * (2130706433, 0x7f.1, 0177.0.0.1, 127.1) are judged by the address they mean.
 *
 * A name is not resolved here (a Worker has no DNS look-up): a public name that resolves to a
 * private address is stopped by Cloudflare's edge, which does not connect Workers to private ranges.
 * Callers fetch with `redirect: "manual"`, so a public URL cannot redirect the worker elsewhere.
 */

const MAX_URL_LENGTH = 2048;
const EXAMPLE = "must be an absolute URL such as https://app.example.com/windsock";
const PRIVATE_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"];
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1"]);
/** IPv6 global unicast (RFC 4291 2.4); ipaddr.js calls the special ranges inside it by name. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

export interface OutboundOptions {
  /** Development only: also accept http and https to this machine (localhost, 127.0.0.1, [::1]). */
  allowLoopback: boolean;
}

/**
 * Whether this deployment accepts loopback URLs: only in development, and only when the operator
 * opted in with OUTBOUND_ALLOW_LOOPBACK=true (for a receiver on the same machine).
 */
export function loopbackAllowed(environment: string, optIn: string | undefined): boolean {
  return environment === "development" && optIn === "true";
}

/** Why the worker must not send requests to `url`, or null when it may. */
export function outboundUrlProblem(url: string, options: OutboundOptions): string | null {
  if (url.length > MAX_URL_LENGTH || !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return EXAMPLE;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return EXAMPLE;
  }
  if (!parsed.hostname) return EXAMPLE;
  if (parsed.username || parsed.password) return "must not carry a user name or password";
  if (parsed.hash || url.includes("#")) return "must not carry a fragment";
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must use https";
  // "[::1]" → "::1"; "localhost." → "localhost".
  const host = parsed.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (options.allowLoopback && LOOPBACK_NAMES.has(host)) return null;
  if (parsed.protocol !== "https:")
    return options.allowLoopback ? "must use https (http only to localhost or 127.0.0.1)" : "must use https";
  return hostProblem(host);
}

/** Why `host` (a URL's host name, without brackets or a final dot) is not a public host, or null. */
function hostProblem(host: string): string | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return addressProblem(ipaddr.IPv4.parse(host), host);
  if (ipaddr.IPv6.isValid(host)) return addressProblem(ipaddr.IPv6.parse(host), host);
  if (host === "localhost" || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix)))
    return `must name a public host (${host}: local or internal name)`;
  if (!host.includes(".")) return `must name a public host (${host}: single-label name)`;
  return null;
}

function addressProblem(address: ipaddr.IPv4 | ipaddr.IPv6, host: string): string | null {
  if (address instanceof ipaddr.IPv4) {
    const range = address.range();
    return range === "unicast" ? null : `must name a public host (${host}: ${rangeName(range)} address)`;
  }
  if (address.isIPv4MappedAddress()) return addressProblem(address.toIPv4Address(), host);
  const range = address.range();
  if (range === "unicast" && address.match(GLOBAL_UNICAST_V6)) return null;
  return `must name a public host (${host}: ${range === "unicast" ? "reserved" : rangeName(range)} address)`;
}

/** ipaddr.js's range names, as a sentence says them. */
function rangeName(range: string): string {
  const names: Record<string, string> = {
    carrierGradeNat: "carrier-grade NAT",
    linkLocal: "link-local",
    uniqueLocal: "private (unique local)",
    rfc6052: "NAT64",
    rfc6145: "IPv4-translated",
    deprecatedSiteLocal: "site-local",
  };
  return names[range] ?? range;
}
