import { describe, expect, it } from "vitest";
import { readConfig } from "../../relay/config";
import { Counter, Gauge, Histogram, Registry } from "../../relay/metrics";

describe("relay configuration", () => {
  it("has defaults for everything but the secret", () => {
    const config = readConfig([], { RELAY_SECRET: "s", STATE_DIR: "/var/lib/ws" });
    expect(config).toMatchObject({
      port: 16060,
      host: "0.0.0.0",
      workerUrl: "http://127.0.0.1:8787",
      metricsPort: 9464,
      spoolDir: "/var/lib/ws/relay-spool",
      ratePerSession: 1000,
      burstPerSession: 10_000,
      failuresPerIp: 20,
      failureBurstPerIp: 200,
      lookUpsPerSecond: 200,
      lookUpBurst: 2000,
      batchSize: 1000,
    });
  });

  it("keeps the metrics port fixed whatever the telemetry port (never derived from it)", () => {
    for (const port of ["16060", "36060", "17000"]) {
      const config = readConfig([], { RELAY_SECRET: "s", TELEMETRY_PORT: port });
      expect(config).toMatchObject({ port: Number(port), metricsPort: 9464 });
    }
    expect(readConfig(["--port=36060"], { RELAY_SECRET: "s" })).toMatchObject({ metricsPort: 9464 });
  });

  it("reads the environment, and flags win over it", () => {
    const config = readConfig(["--port", "17000", "--worker-url=https://api.example/"], {
      RELAY_SECRET: "s",
      TELEMETRY_PORT: "16500",
      RELAY_METRICS_PORT: "9999",
      RELAY_RATE_PER_SESSION: "0",
      TELEMETRY_HOST: "127.0.0.1",
    });
    expect(config).toMatchObject({
      port: 17000,
      metricsPort: 9999,
      workerUrl: "https://api.example",
      ratePerSession: 0,
      host: "127.0.0.1",
    });
  });

  it("answers --help and refuses bad values by name", () => {
    expect(readConfig(["--help"], {})).toBe("help");
    expect(() => readConfig([], {})).toThrow(/RELAY_SECRET/);
    expect(() => readConfig(["--port", "x"], { RELAY_SECRET: "s" })).toThrow(/--port/);
    expect(() => readConfig(["--batch-size", "5000"], { RELAY_SECRET: "s" })).toThrow(/--batch-size/);
    expect(() => readConfig(["--log-level", "loud"], { RELAY_SECRET: "s" })).toThrow(/--log-level/);
    expect(() => readConfig(["--unknown"], { RELAY_SECRET: "s" })).toThrow(/unknown/i);
    // Valid traffic is no longer limited by address: the old option is gone, not silently ignored.
    expect(() => readConfig(["--rate-per-ip=5"], { RELAY_SECRET: "s" })).toThrow(/rate-per-ip/);
  });
});

describe("metrics exposition", () => {
  it("renders counters by label, gauges and cumulative histogram buckets", () => {
    const registry = new Registry();
    const dropped = registry.add(new Counter("dropped_total", "Dropped"));
    dropped.inc({ reason: "replayed" });
    dropped.inc({ reason: "replayed" }, 2);
    dropped.inc({ reason: 'odd"one' });
    registry.add(new Gauge("queue", "Queue", () => 7));
    const latency = registry.add(new Histogram("latency_seconds", "Latency", [0.1, 1]));
    latency.observe(0.05);
    latency.observe(0.5);
    latency.observe(5);
    expect(registry.render()).toBe(
      [
        "# HELP dropped_total Dropped",
        "# TYPE dropped_total counter",
        'dropped_total{reason="replayed"} 3',
        'dropped_total{reason="odd\\"one"} 1',
        "# HELP queue Queue",
        "# TYPE queue gauge",
        "queue 7",
        "# HELP latency_seconds Latency",
        "# TYPE latency_seconds histogram",
        'latency_seconds_bucket{le="0.1"} 1',
        'latency_seconds_bucket{le="1"} 2',
        'latency_seconds_bucket{le="+Inf"} 3',
        "latency_seconds_sum 5.55",
        "latency_seconds_count 3",
        "",
      ].join("\n"),
    );
  });
});
