import { runCommand } from "../command";
import { createLog } from "../log";
import { startTrafficBroker } from "./broker";
import { HELP, readConfig } from "./config";

/** Entry point: `tsx relay/traffic/main.ts --help`. */
runCommand({
  name: "traffic broker",
  help: HELP,
  readConfig,
  async start(config, log) {
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
    return broker;
  },
  // MQTT clients that never close their sockets must not hold a stop.
  exitWithinMs: 3000,
});
