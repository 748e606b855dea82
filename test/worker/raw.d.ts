/** Vite's `?raw` imports: a fixture file's text, as the importers read it. */
declare module "*?raw" {
  const text: string;
  export default text;
}
