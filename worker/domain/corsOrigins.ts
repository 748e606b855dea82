import { type Checked, checked, problem } from "./problem";

/** The most origins one account may list: a handful of app hosts, not a directory. */
export const MAX_CORS_ORIGINS = 20;

/**
 * An origin as browsers send it in `Origin` (`https://app.example`, `http://localhost:5173`): scheme
 * http or https, host, port only when not the default. A trailing slash is forgiven; a path, query,
 * user name or `*` is refused, since no browser sends one.
 */
export function normalizeOrigin(value: string, field = "origin"): Checked<string> {
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return problem(
      field,
      `${JSON.stringify(value)} is not an origin: send scheme and host, e.g. https://app.example`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return problem(field, `${JSON.stringify(value)} is not an http or https origin`);
  // Checked on the text: URL drops an empty `?` or `#`, which no Origin header carries either.
  if (!/^https?:\/\/[^/@?#]+\/?$/i.test(text))
    return problem(field, `${JSON.stringify(value)} has more than scheme, host and port: send ${url.origin}`);
  return checked(url.origin);
}

/** An account's whole list: each entry an origin, no more than MAX_CORS_ORIGINS; duplicates merged. */
export function normalizeOrigins(values: readonly string[], field = "origins"): Checked<string[]> {
  const origins = new Set<string>();
  const problems = [];
  for (const [i, value] of values.entries()) {
    const one = normalizeOrigin(value, `${field}.${i}`);
    if (one.ok) origins.add(one.value);
    else problems.push(...one.problems);
  }
  if (problems.length > 0) return { ok: false, problems };
  if (origins.size > MAX_CORS_ORIGINS)
    return problem(field, `at most ${MAX_CORS_ORIGINS} origins per application (got ${origins.size})`);
  return checked([...origins].sort());
}
