import path from "node:path";
import { parseCommandLine, runCommand } from "./lib/cli";
import { ROOT } from "./lib/config";
import { ASSETS_DIR, prepareStaticAssets, STATIC_FILES } from "./lib/staticAssets";

const HELP = `npm run assets
  Copies the pages' static files (Swagger UI's for /docs) from node_modules into ${path.relative(ROOT, ASSETS_DIR)}/,
  the directory wrangler.toml's [assets] serves, with a _headers file that caches them for good.
  npm start, the tests and npm run deploy run it first; run it yourself before a bare wrangler command.
  Files to copy: STATIC_FILES in tools/lib/staticAssets.ts.`;

parseCommandLine({ help: HELP, options: {} });
runCommand(async () => {
  const done = prepareStaticAssets();
  const listed = STATIC_FILES.map((file) => file.to).join(", ");
  console.log(
    `${path.relative(ROOT, ASSETS_DIR)}/: ${done.files} files, ${(done.bytes / 1024).toFixed(0)} KiB ` +
      `(${done.written} written, ${done.removed} stale removed): ${listed}, _headers`,
  );
});
