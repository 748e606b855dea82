/** Vite's `?raw` imports: a fixture file's text, as the importers read it. */
declare module "*?raw" {
  const text: string;
  export default text;
}

/** wrangler.toml's Data rule: a PMTiles fixture's bytes. */
declare module "*.pmtiles" {
  const bytes: ArrayBuffer;
  export default bytes;
}
