import { readdirSync, readFileSync } from "node:fs";

/**
 * What a failed health probe means, judged by the supervised runtime's processes: a front that is
 * busy (500 live streams kept /health over 1 s) must not be restarted, while a dead or hung one must
 * come back quickly. Linux only (/proc); elsewhere `readGroupActivity` returns null and the probes
 * alone decide, as before.
 */

/** The supervised processes' CPU, summed: one reading of /proc. */
export interface ActivitySample {
  /** When it was read (ms). */
  at: number;
  /** How many of the watched processes were alive. */
  processes: number;
  /** Their pids: a runtime replaced behind wrangler's back (all of these gone) counts as gone. */
  pids?: number[];
  /** Their user + system CPU time, in clock ticks (USER_HZ). */
  cpuTicks: number;
}

/** USER_HZ: the unit of /proc/<pid>/stat's CPU times, 100 on every Linux user-space ABI. */
export const TICKS_PER_SECOND = 100;
/** CPU use at or above this share of one core between two samples counts as progress. */
export const PROGRESS_SHARE = 0.1;
/** A runtime that keeps using CPU but does not answer is restarted after this long anyway. */
export const BUSY_CEILING_MS = 30_000;

/**
 * The CPU ticks of the processes in process group `group` (a detached child's group holds what it
 * started, e.g. wrangler's workerd), only those whose command name is `command` when given.
 */
export function readGroupActivity(group: number, command?: string, now = Date.now()): ActivitySample | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const alive: number[] = [];
  let cpuTicks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const parsed = parseStat(stat);
    if (!parsed || parsed.group !== group || parsed.state === "Z") continue;
    if (command !== undefined && parsed.command !== command) continue;
    alive.push(Number(pid));
    cpuTicks += parsed.cpuTicks;
  }
  return { at: now, processes: alive.length, cpuTicks, pids: alive };
}

/** /proc/<pid>/stat: "pid (comm) state ppid pgrp … utime(14) stime(15) …"; comm may hold spaces. */
export function parseStat(
  stat: string,
): { command: string; state: string; group: number; cpuTicks: number } | null {
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = stat.slice(close + 2).split(" ");
  // fields[0] is field 3 (state): field n is fields[n - 3].
  const group = Number(fields[2]);
  const cpuTicks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(group) || !Number.isFinite(cpuTicks)) return null;
  return { command: stat.slice(open + 1, close), state: fields[0] ?? "", group, cpuTicks };
}

/** What the supervisor remembers between probes. */
export interface ProbeState {
  /** Failed probes in a row in which the runtime made no CPU progress. */
  stalled: number;
  /** When the current run of failed probes began, or null while probes pass. */
  failingSince: number | null;
  /** The previous reading, to measure progress against. */
  last: ActivitySample | null;
}

export const INITIAL_PROBE_STATE: ProbeState = { stalled: 0, failingSince: null, last: null };

export type ProbeVerdict = "healthy" | "busy" | "waiting" | "restart";

/**
 * The rule, after each probe (`failures` = the threshold of failed probes in a row):
 * - the probe answered: healthy;
 * - no answer and none of the runtime's processes left, or none of those last seen (wrangler started
 *   a new workerd after its own died, and that one left the API hung): gone, restart at once;
 * - no answer but the runtime used CPU since the last reading: busy, wait (up to BUSY_CEILING_MS of
 *   failing probes, after which it is restarted as hung in a loop);
 * - no answer and no CPU progress for `failures` probes in a row: hung, restart.
 * Without readings (not Linux) it is the plain count: `failures` failed probes in a row restart it.
 */
export function judgeProbe(
  state: ProbeState,
  answered: boolean,
  sample: ActivitySample | null,
  failures: number,
  now = Date.now(),
): { verdict: ProbeVerdict; state: ProbeState } {
  if (answered) return { verdict: "healthy", state: { stalled: 0, failingSince: null, last: sample } };
  const failingSince = state.failingSince ?? now;
  if (sample && (sample.processes === 0 || replaced(state.last, sample)))
    return { verdict: "restart", state: { stalled: state.stalled + 1, failingSince, last: sample } };
  const progressed = sample !== null && state.last !== null && madeProgress(state.last, sample);
  const stalled = progressed ? 0 : state.stalled + 1;
  const next = { stalled, failingSince, last: sample };
  if (stalled >= failures || now - failingSince >= BUSY_CEILING_MS)
    return { verdict: "restart", state: next };
  return { verdict: progressed ? "busy" : "waiting", state: next };
}

/** Whether every process of `before` is gone from `after` (both read with pids). */
function replaced(before: ActivitySample | null, after: ActivitySample): boolean {
  if (!before?.pids?.length || !after.pids) return false;
  return !before.pids.some((pid) => after.pids!.includes(pid));
}

/** Whether the processes used at least PROGRESS_SHARE of a core between two readings. */
export function madeProgress(before: ActivitySample, after: ActivitySample): boolean {
  const elapsedMs = after.at - before.at;
  if (elapsedMs <= 0) return false;
  const usedMs = ((after.cpuTicks - before.cpuTicks) * 1000) / TICKS_PER_SECOND;
  return usedMs >= elapsedMs * PROGRESS_SHARE;
}
