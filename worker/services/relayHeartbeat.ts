/**
 * When this isolate last served the telemetry relay (an authenticated `/internal/v1` call). Isolate
 * memory: another isolate, or a restarted one, has not seen it, and says `unknown` rather than down.
 */
let lastSeen: number | undefined;

export function noteRelaySeen(now = Date.now()): void {
  lastSeen = now;
}

export function relayLastSeen(): number | undefined {
  return lastSeen;
}
