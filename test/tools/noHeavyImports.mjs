import { register } from "node:module";

// Loaded with --import after tsx: any import of wrangler or miniflare fails the command, so a
// test can tell that --help and argument errors are answered before the heavy modules load.
const hook = `export async function resolve(specifier, context, next) {
  if (/^(wrangler|miniflare)(\\/|$)/.test(specifier)) throw new Error("loaded " + specifier + " before the arguments were checked");
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
