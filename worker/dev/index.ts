import app from "../index";
import { tracedFetch } from "./tracedFetch";

/**
 * The worker with its storage calls counted and delayable (tracedFetch.ts), for tests and benches
 * only: `STORAGE_TRACE=1 npm start` serves this entry instead of worker/index.ts, wrangler.toml's
 * `main` and the one deployed.
 */
export default {
  fetch: tracedFetch,
  scheduled: app.scheduled,
} satisfies ExportedHandler<Parameters<typeof tracedFetch>[1]>;
// Every Durable Object class the deployed entry exports, whichever are added later.
export * from "../index";
