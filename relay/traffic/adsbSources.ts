import { connect, type Socket } from "node:net";
import { createInterface } from "node:readline";
import type { Log } from "../log";
import { parseAircraftJson, SbsAssembler } from "./adsb";
import type { Track } from "./semantics";

/**
 * The operator's ADS-B receiver, read as it publishes: aircraft.json polled over HTTP, SBS-1 lines
 * over TCP (reconnecting). Each hands its tracks to `deliver`; what is malformed is counted and
 * skipped, never stops the reading.
 */

export interface AdsbCounters {
  tracks: number;
  skipped: number;
  malformed: number;
  failures: number;
}

export interface Source {
  stop(): void;
}

/** Polls a readsb / dump1090 aircraft.json every `intervalMs`; a slow or failed poll delays the next, never piles up. */
export function pollAircraftJson(
  url: string,
  intervalMs: number,
  deliver: (tracks: Track[]) => void,
  counters: AdsbCounters,
  log: Log,
): Source {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  const poll = async () => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(Math.max(2000, intervalMs * 2)) });
      if (!res.ok) throw new Error(`answered ${res.status}`);
      const parsed = parseAircraftJson(await res.text());
      if (!parsed) throw new Error("not an aircraft.json document (no `now` and `aircraft`)");
      counters.tracks += parsed.tracks.length;
      counters.skipped += parsed.skipped;
      if (failing) log.info("aircraft.json readable again", { url });
      failing = false;
      deliver(parsed.tracks);
    } catch (err) {
      counters.failures++;
      if (!failing)
        log.warn("aircraft.json poll failed", { url, error: String((err as Error).message ?? err) });
      failing = true;
    }
    if (!stopped) timer = setTimeout(poll, intervalMs);
  };
  void poll();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Reads SBS-1 BaseStation lines from host:port, reconnecting 2 s after the connection drops. */
export function readSbs(
  address: { host: string; port: number },
  deliver: (tracks: Track[]) => void,
  counters: AdsbCounters,
  log: Log,
): Source {
  const assembler = new SbsAssembler();
  let socket: Socket | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let warned = false;
  const sweep = setInterval(() => assembler.forget(Date.now() - 60_000), 10_000);
  const open = () => {
    socket = connect(address);
    socket.setKeepAlive(true, 10_000);
    socket.on("connect", () => {
      warned = false;
      log.info("SBS feed connected", address);
    });
    // A line longer than any SBS message is cut off by readline's lack of one: guard by length below.
    const lines = createInterface({ input: socket, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on("line", (line) => {
      if (line.length > 512) {
        counters.malformed++;
        return;
      }
      const result = assembler.line(line, Date.now());
      if ("track" in result) {
        counters.tracks++;
        deliver([result.track]);
      } else if ("malformed" in result) counters.malformed++;
    });
    socket.on("error", (err) => {
      counters.failures++;
      if (!warned) log.warn("SBS feed failed", { ...address, error: err.message });
      warned = true;
    });
    socket.on("close", () => {
      if (!stopped) timer = setTimeout(open, 2000);
    });
  };
  open();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(sweep);
      socket?.destroy();
    },
  };
}
