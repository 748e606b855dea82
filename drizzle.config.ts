import { defineConfig } from "drizzle-kit";

// `npm run db:generate -- --name <change>` writes the next flat SQL migration that wrangler applies.
export default defineConfig({
  dialect: "sqlite",
  schema: "./schema/index.ts",
  out: "./schema/migrations",
});
