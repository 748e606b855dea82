import { HELP, readConfig } from "./config";
import { createLog } from "./log";
import { startRelay } from "./relay";

/** Entry point: `tsx relay/main.ts --help`. */
async function main() {
  let config: ReturnType<typeof readConfig>;
  try {
    config = readConfig(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`error: ${(err as Error).message}\nRun with --help for the options.`);
    process.exit(2);
  }
  if (config === "help") {
    console.log(HELP);
    return;
  }
  const log = createLog(config.logLevel);
  const relay = await startRelay(config, log);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    relay.close().then(
      () => {
        log.info("stopped");
        process.exit(0);
      },
      (err) => {
        log.error("stopping failed", { error: String(err) });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((err) => {
  console.error(
    JSON.stringify({
      time: new Date().toISOString(),
      level: "error",
      msg: "relay failed to start",
      error: String(err),
    }),
  );
  process.exit(1);
});
