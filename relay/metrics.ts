import { createServer, type Server } from "node:http";

/** Prometheus text exposition (format 0.0.4) of a few counters, gauges and one histogram. */

type Labels = Record<string, string>;

interface Metric {
  render(): string[];
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "\\$&")}"`);
  return pairs.length > 0 ? `{${pairs.join(",")}}` : "";
}

export class Counter implements Metric {
  /** The count without labels, kept apart: it is bumped per datagram. */
  private plain = 0;
  private readonly labelled = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    private readonly help: string,
  ) {}

  inc(labels?: Labels, by = 1): void {
    if (!labels) {
      this.plain += by;
      return;
    }
    const key = labelText(labels);
    const entry = this.labelled.get(key);
    if (entry) entry.value += by;
    else this.labelled.set(key, { labels, value: by });
  }

  value(labels?: Labels): number {
    return labels ? (this.labelled.get(labelText(labels))?.value ?? 0) : this.plain;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.plain > 0 || this.labelled.size === 0) lines.push(`${this.name} ${this.plain}`);
    for (const { labels, value } of this.labelled.values())
      lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines;
  }
}

/** A gauge read when scraped, so it is never stale. */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly read: () => number,
  ) {}

  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, `${this.name} ${this.read()}`];
  }
}

export class Histogram implements Metric {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: number[],
  ) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const i = this.bounds.findIndex((bound) => value <= bound);
    if (i >= 0) this.counts[i]!++;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += this.counts[i]!;
      lines.push(`${this.name}_bucket{le="${bound}"} ${cumulative}`);
    });
    lines.push(
      `${this.name}_bucket{le="+Inf"} ${this.count}`,
      `${this.name}_sum ${this.sum}`,
      `${this.name}_count ${this.count}`,
    );
    return lines;
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];

  add<T extends Metric>(metric: T): T {
    this.metrics.push(metric);
    return metric;
  }

  render(): string {
    return `${this.metrics.flatMap((m) => m.render()).join("\n")}\n`;
  }
}

/** The relay's own metrics; gauges are attached by whoever owns the measured state. */
export function relayMetrics() {
  const registry = new Registry();
  return {
    registry,
    datagramsReceived: registry.add(
      new Counter("windsock_relay_datagrams_received_total", "Datagrams read from the UDP socket"),
    ),
    datagramsAccepted: registry.add(
      new Counter("windsock_relay_datagrams_accepted_total", "Datagrams decrypted, framed and not replayed"),
    ),
    datagramsDropped: registry.add(
      new Counter("windsock_relay_datagrams_dropped_total", "Datagrams dropped, by reason"),
    ),
    recordsAccepted: registry.add(
      new Counter(
        "windsock_relay_records_accepted_total",
        "Records decoded, validated and queued for the worker",
      ),
    ),
    recordsDropped: registry.add(
      new Counter("windsock_relay_records_dropped_total", "Records dropped, by reason"),
    ),
    recordsForwarded: registry.add(
      new Counter(
        "windsock_relay_records_forwarded_total",
        "Records the worker acknowledged (stored or already stored)",
      ),
    ),
    keyFetches: registry.add(
      new Counter("windsock_relay_key_fetches_total", "Session key look-ups, by result"),
    ),
    postFailures: registry.add(
      new Counter("windsock_relay_post_failures_total", "Failed posts to the worker, retried"),
    ),
    batchLatency: registry.add(
      new Histogram(
        "windsock_relay_batch_latency_seconds",
        "From a batch's first record received to the worker's acknowledgement",
        [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      ),
    ),
  };
}

export type RelayMetrics = ReturnType<typeof relayMetrics>;

/** Serves GET /metrics (and /health) on the given port. */
export function serveMetrics(registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === "/metrics") {
      res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" }).end(registry.render());
    } else if (req.url === "/health") {
      res.writeHead(200, { "Content-Type": "text/plain" }).end("ok\n");
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("try /metrics\n");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
