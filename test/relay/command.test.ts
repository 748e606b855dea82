import { describe, expect, it } from "vitest";
import { readOptions } from "../../relay/command";

const SPEC = {
  numeric: { port: ["X_PORT", 100], "batch-ms": ["X_BATCH_MS", 200] },
  text: { host: ["X_HOST", "0.0.0.0"], "spool-dir": ["X_SPOOL", undefined] },
  switches: ["plain"],
} as const;

function read(argv: string[], env: Record<string, string> = {}) {
  const options = readOptions(argv, env, SPEC);
  if (options === "help") throw new Error("unexpected help");
  return options;
}

describe("the relay host's commands' options", () => {
  it("take the flag, else the variable, else the default; an empty variable is unset", () => {
    expect(read(["--port", "7"], { X_PORT: "8" }).number("port")).toBe(7);
    expect(read([], { X_PORT: "8" }).number("port")).toBe(8);
    expect(read([], { X_PORT: "" }).number("port")).toBe(100);
    expect(read([], { X_HOST: "" }).text("host")).toBe("0.0.0.0");
    expect(read([]).text("spool-dir")).toBeUndefined();
    expect(read(["--plain"]).switch("plain")).toBe(true);
    expect(read([]).switch("plain")).toBe(false);
    expect(read([], { LOG_LEVEL: "warn" }).logLevel).toBe("warn");
  });

  it("refuse what is not a number, a port that is none, and an unknown level, naming the option and variable", () => {
    expect(() => read(["--batch-ms", "soon"]).number("batch-ms")).toThrow(
      /--batch-ms \(X_BATCH_MS\) must be a number/,
    );
    expect(read(["--batch-ms", "0.5"]).number("batch-ms")).toBe(0.5);
    expect(() => read([], { X_PORT: "16060.5" }).number("port")).toThrow(
      /--port \(X_PORT\) must be a port number/,
    );
    expect(() => read(["--port", "70000"]).number("port")).toThrow(/0 to 65535/);
    expect(() => read(["--log-level", "loud"])).toThrow(/--log-level/);
    expect(() => read(["--colour"])).toThrow(/colour/);
  });

  it("answer help when asked", () => {
    expect(readOptions(["--help"], {}, SPEC)).toBe("help");
  });
});
