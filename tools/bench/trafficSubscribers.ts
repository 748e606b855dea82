import mqtt, { type MqttClient } from "mqtt";

/**
 * A share of the traffic bench's monitored flights' MQTT clients, in a process of its own
 * (tools/bench/traffic.ts forks several): 1,000 TLS clients in the bench's own event loop made it
 * measure its own queue. Reports over IPC: when all are connected, every probe's alert as it arrives
 * (the probe's track id, the flight, the time), and how many messages arrived each second.
 */

export interface SubscriberShare {
  port: number;
  ca: string;
  token: string;
  flightIds: string[];
  /** Track ids of the bench's probes start with this. */
  probePrefix: string;
}

export type SubscriberReport =
  | { type: "connected"; retries: number }
  | { type: "alert"; trackId: string; flightId: string; at: number }
  | { type: "received"; count: number }
  | { type: "failed"; message: string };

const report = (message: SubscriberReport) => process.send?.(message);

async function connectOne(share: SubscriberShare, flightId: string, counted: { retries: number }) {
  // A client refused with "server unavailable" (the worker busy) tries again, as an app would.
  for (let attempt = 1; ; attempt++) {
    try {
      return await mqtt.connectAsync(`mqtts://127.0.0.1:${share.port}`, {
        username: flightId,
        password: share.token,
        ca: share.ca,
        protocolVersion: 4,
        reconnectPeriod: 0,
        connectTimeout: 60_000,
        keepalive: 15,
      });
    } catch (err) {
      if (attempt >= 10 || (err as { code?: number }).code !== 3) throw err;
      counted.retries++;
      await new Promise((r) => setTimeout(r, Math.min(5000, 1000 * attempt)));
    }
  }
}

async function run(share: SubscriberShare) {
  const clients: MqttClient[] = [];
  const counted = { retries: 0 };
  let received = 0;
  process.on("message", (message) => {
    if (message !== "stop") return;
    for (const client of clients) client.end(true);
    process.exit(0);
  });
  // Ten CONNECTs at a time per process: each waits for the worker's admission.
  for (let i = 0; i < share.flightIds.length; i += 10) {
    await Promise.all(
      share.flightIds.slice(i, i + 10).map(async (flightId) => {
        const client = await connectOne(share, flightId, counted);
        const alertTopic = `uav/traffic/alert/${flightId}`;
        client.on("message", (topic, payload) => {
          received++;
          if (topic !== alertTopic) return;
          const at = Date.now();
          const text = payload.toString();
          // Only the probes matter: most alerts are the region's steady neighbours.
          if (!text.includes(share.probePrefix)) return;
          for (const update of (JSON.parse(text) as { traffic: { id: string }[] }).traffic)
            if (update.id.startsWith(share.probePrefix))
              report({ type: "alert", trackId: update.id, flightId, at });
        });
        await client.subscribeAsync({
          [`uav/traffic/sa/${flightId}`]: { qos: 1 },
          [alertTopic]: { qos: 1 },
        });
        clients.push(client);
      }),
    );
  }
  report({ type: "connected", retries: counted.retries });
  setInterval(() => {
    report({ type: "received", count: received });
    received = 0;
  }, 1000);
}

process.once("message", (share: SubscriberShare) => {
  run(share).catch((err) => {
    report({ type: "failed", message: String(err) });
    process.exit(1);
  });
});
