import { createLog } from "../log";
import { startTrafficBroker } from "./broker";
import { HELP, readConfig } from "./config";

/** Entry point: `tsx relay/traffic/main.ts --help`. */
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
  const broker = await startTrafficBroker(config, log);
  // Always written, whatever the level: npm start and the tests wait for this line.
  createLog("info").info("listening", {
    host: config.host,
    port: broker.ports.mqtt,
    ws_port: broker.ports.ws,
    ws_tls: !config.wsPlain,
    feed_port: broker.ports.feed,
    adsb_url: config.adsbUrl,
    sbs: config.sbs && `${config.sbs.host}:${config.sbs.port}`,
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping", { signal });
    broker.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((err) => {
  console.error(
    JSON.stringify({
      time: new Date().toISOString(),
      level: "error",
      msg: "traffic broker failed to start",
      error: String(err),
    }),
  );
  process.exit(1);
});
