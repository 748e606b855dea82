import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../relay/traffic/config";
import { ROOT } from "../../../tools/lib/config";

const env = { RELAY_SECRET: "s" };

describe("the traffic broker's settings", () => {
  it("defaults to 8883 for MQTT over TLS, and takes each setting from a flag or its variable", () => {
    const config = readConfig([], env);
    if (config === "help") throw new Error("help");
    expect(config).toMatchObject({
      port: 8883,
      wsPort: 8884,
      feedPort: 8885,
      adsbUrl: null,
      sbs: null,
      drainTimeoutMs: 5000,
    });
    const set = readConfig(["--port=18860", "--sbs=receiver.local:30003"], {
      ...env,
      TRAFFIC_ADSB_URL: "http://r/data/aircraft.json",
      TRAFFIC_WS_PORT: "off",
    });
    expect(set).toMatchObject({
      port: 18860,
      wsPort: null,
      sbs: { host: "receiver.local", port: 30003 },
      adsbUrl: "http://r/data/aircraft.json",
    });
  });

  it("answers --help and refuses bad values by name", () => {
    expect(readConfig(["--help"], {})).toBe("help");
    expect(() => readConfig([], {})).toThrow(/RELAY_SECRET/);
    expect(() => readConfig(["--sbs=receiver"], env)).toThrow(/--sbs .*host:port/);
    expect(() => readConfig(["--adsb-url=receiver/aircraft.json"], env)).toThrow(/--adsb-url/);
    expect(() => readConfig(["--port=-1"], env)).toThrow(/--port/);
    expect(() => readConfig(["--ws-port=x"], env)).toThrow(/--ws-port/);
  });

  it("prints its help from the command line", () => {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "relay/traffic/main.ts"), "--help"],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(out).toContain("TRAFFIC_PORT");
    expect(out).toContain("aircraft.json");
  });
});
