import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { httpProbe } from "../../tools/lib/processes";
import {
  type ActivitySample,
  BUSY_CEILING_MS,
  INITIAL_PROBE_STATE,
  judgeProbe,
  type ProbeState,
  parseStat,
  readGroupActivity,
} from "../../tools/lib/runtimeActivity";
import { superviseTestFront } from "../e2e/supervisedFront";

/** Runs judgeProbe over probes 500 ms apart: [answered, processes, cpuTicks] each; the verdicts. */
function judgeAll(probes: [answered: boolean, processes: number, cpuTicks: number][], failures = 3) {
  let state: ProbeState = INITIAL_PROBE_STATE;
  return probes.map(([answered, processes, cpuTicks], i) => {
    const at = 1_000_000 + i * 500;
    const sample: ActivitySample = { at, processes, cpuTicks };
    const judged = judgeProbe(state, answered, sample, failures, at);
    state = judged.state;
    return judged.verdict;
  });
}

describe("judgeProbe: busy is not hung", () => {
  it("waits for a runtime that does not answer while it uses CPU (recorded: 500 live streams)", () => {
    // One workerd at ~90 % of a core (45 ticks per 500 ms) for 4 s of failed probes, then /health answers.
    const ticks = [1000, 1020, 1065, 1110, 1155, 1200, 1245, 1290, 1335, 1380, 1400];
    const probes = ticks.map((t, i): [boolean, number, number] => [i < 2 || i === 10, 1, t]);
    const verdicts = judgeAll(probes);
    expect(verdicts).not.toContain("restart");
    expect(verdicts.slice(2, 10).every((v) => v === "busy")).toBe(true);
    expect(verdicts.at(-1)).toBe("healthy");
  });

  it("restarts at once when the runtime's processes are gone (kill -9 of workerd)", () => {
    expect(
      judgeAll([
        [true, 1, 500],
        [false, 0, 0],
      ]),
    ).toEqual(["healthy", "restart"]);
  });

  it("restarts at once when wrangler replaced its runtime and the API does not answer", () => {
    let state: ProbeState = INITIAL_PROBE_STATE;
    const samples: ActivitySample[] = [
      { at: 0, processes: 1, cpuTicks: 900, pids: [4242] },
      { at: 500, processes: 1, cpuTicks: 80, pids: [4300] },
    ];
    const verdicts = samples.map((sample, i) => {
      const judged = judgeProbe(state, i === 0, sample, 3, sample.at);
      state = judged.state;
      return judged.verdict;
    });
    expect(verdicts).toEqual(["healthy", "restart"]);
  });

  it("restarts a runtime that answers nothing and uses no CPU for the threshold (SIGSTOP, deadlock)", () => {
    expect(
      judgeAll([
        [true, 1, 500],
        [false, 1, 500],
        [false, 1, 501],
        [false, 1, 501],
      ]),
    ).toEqual(["healthy", "waiting", "waiting", "restart"]);
  });

  it("a pause in CPU use does not restart a runtime that then works again", () => {
    expect(
      judgeAll([
        [true, 1, 500],
        [false, 1, 500],
        [false, 1, 500],
        [false, 1, 540],
        [false, 1, 540],
        [true, 1, 560],
      ]),
    ).toEqual(["healthy", "waiting", "waiting", "busy", "waiting", "healthy"]);
  });

  it("restarts a runtime busy without answering beyond the ceiling (a loop that never ends)", () => {
    const probes: [boolean, number, number][] = [[true, 1, 0]];
    for (let i = 1; i <= BUSY_CEILING_MS / 500 + 1; i++) probes.push([false, 1, i * 50]);
    const verdicts = judgeAll(probes);
    const first = verdicts.indexOf("restart");
    // The first failed probe is at index 1: restarted once BUSY_CEILING_MS of failing has passed.
    expect(first).toBe(1 + BUSY_CEILING_MS / 500);
    expect(verdicts.slice(1, first).every((v) => v === "busy")).toBe(true);
  });

  it("without readings (not Linux) it counts failed probes as before", () => {
    let state: ProbeState = INITIAL_PROBE_STATE;
    const verdicts = [false, false, false].map((ok, i) => {
      const judged = judgeProbe(state, ok, null, 3, i * 500);
      state = judged.state;
      return judged.verdict;
    });
    expect(verdicts).toEqual(["waiting", "waiting", "restart"]);
  });
});

describe("reading /proc", () => {
  it("parses a stat line whose command holds spaces and parentheses", () => {
    const line = "4242 (work (er) d) S 1 4200 4200 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 9 0 1 2 3";
    expect(parseStat(line)).toEqual({ command: "work (er) d", state: "S", group: 4200, cpuTicks: 287 });
  });

  it.runIf(process.platform === "linux")(
    "sums a detached child's process group and sees CPU progress",
    async () => {
      const child = spawn(
        process.execPath,
        ["-e", "const end = Date.now() + 1500; while (Date.now() < end);"],
        {
          detached: true,
          stdio: "ignore",
        },
      );
      try {
        await new Promise((r) => setTimeout(r, 100));
        const before = readGroupActivity(child.pid!, "node")!;
        await new Promise((r) => setTimeout(r, 800));
        const after = readGroupActivity(child.pid!, "node")!;
        expect(before.processes).toBe(1);
        expect(after.cpuTicks).toBeGreaterThan(before.cpuTicks);
        expect(readGroupActivity(child.pid!, "workerd")!.processes).toBe(0);
      } finally {
        child.kill("SIGKILL");
      }
    },
  );
});

describe.runIf(process.platform === "linux")("supervise with activity", () => {
  it("leaves a front that is busy for 4 s (CPU, no answer) alone; it answers again after", async () => {
    const { port, logs, ready, supervised } = await superviseTestFront({ busyMs: 4000, activity: true });
    try {
      process.kill(supervised.child.pid!, "SIGUSR2");
      await new Promise((r) => setTimeout(r, 4500));
      expect(logs.join("\n")).toMatch(/front is busy/);
      expect(logs.join("\n")).not.toMatch(/killing it/);
      expect(ready).toHaveLength(1);
      expect(await httpProbe(`http://127.0.0.1:${port}/health`)()).toBe(true);
    } finally {
      await supervised.stop("SIGKILL");
    }
  });
});
