import { describe, expect, it } from "vitest";
import { describeParseError } from "../../tools/lib/cli";
import { DEV_ISSUER, SCOPES } from "../../worker/interuss/auth";
import { NO_HEAVY, runTool } from "./runTool";

/** Runs an operator command as `npm run` does (tsx), with wrangler and miniflare made unloadable. */
const command = (script: string, ...args: string[]) => runTool(script, args, { imports: [NO_HEAVY] });

// [script and subcommand, a line its usage prints]
const COMMANDS: [string[], string][] = [
  [["tools/token.ts"], "npm run token"],
  [["tools/interussToken.ts"], "npm run interuss:token"],
  [["tools/telemetrySend.ts"], "npm run telemetry:send"],
  [["tools/keys.ts", "create"], "npm run keys:create"],
  [["tools/keys.ts", "list"], "npm run keys:list"],
  [["tools/keys.ts", "revoke"], "npm run keys:revoke"],
  [["tools/callbacks.ts", "add"], "npm run callbacks -- add"],
  [["tools/callbacks.ts", "list"], "npm run callbacks -- list"],
  [["tools/identityProvider.ts", "set"], "npm run pilots:provider -- set"],
  [["tools/identityProvider.ts", "show"], "npm run pilots:provider -- show"],
  [["tools/agreements.ts", "set"], "npm run agreements -- set"],
  [["tools/agreements.ts", "list"], "npm run agreements -- list"],
  [["tools/airspace/import.ts"], "npm run airspace:import"],
  [["tools/elevation/import.ts"], "npm run elevation:import"],
  [["tools/basemap/build.ts"], "npm run basemap:build"],
  [["tools/basemap/load.ts"], "npm run basemap:load"],
  [["tools/wranglerTypes.ts"], "npm run types"],
  [["tools/assets.ts"], "npm run assets"],
  [["tools/check.ts"], "npm run check"],
  [["tools/airspace/deriveUkRegions.ts"], "deriveUkRegions.ts"],
  [["tools/elevation/deriveSamples.ts"], "deriveSamples.ts"],
];

describe("every operator command", () => {
  it.each(COMMANDS)(
    "%j --help prints its usage and exits 0 without loading wrangler",
    async (argv, usage) => {
      const [script, ...sub] = argv;
      const res = await command(script!, ...sub, "--help");
      expect(res.stderr).toBe("");
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(usage);
    },
  );

  it.each(COMMANDS)("%j refuses an unknown option by name with exit 2", async (argv) => {
    const [script, ...sub] = argv;
    const res = await command(script!, ...sub, "--nmae", "x");
    expect(res.code).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr.trim()).toMatch(/^unknown option --nmae( \(did you mean --[\w-]+\?\))?; see --help$/);
  });

  it("npm test --help answers without running anything, and says where its arguments go", async () => {
    const res = await command("tools/test.ts", "--help");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("npm test [-- <vitest arguments>]");
    expect(res.stdout).toContain("service");
  });

  it("suggests the option meant and names a missing value", async () => {
    const typo = await command("tools/keys.ts", "create", "--nmae", "app");
    expect(typo.stderr.trim()).toBe("unknown option --nmae (did you mean --name?); see --help");
    const missing = await command("tools/keys.ts", "create", "--name");
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe("--name needs a value; see --help");
    const wrongSub = await command("tools/keys.ts", "delete");
    expect(wrongSub.code).toBe(2);
    expect(wrongSub.stderr).toContain('unknown command "delete"');
  });

  it("interuss:token's usage lists the worker's issuer and every scope", async () => {
    const help = (await command("tools/interussToken.ts", "--help")).stdout;
    expect(help.replace(/\s+/g, " ")).toContain(`iss ${DEV_ISSUER}`);
    for (const scope of Object.values(SCOPES)) expect(help).toContain(scope);
  });
});

describe("describeParseError", () => {
  const error = (code: string, message: string) => Object.assign(new Error(message), { code });

  it("says what node:util's errors mean in one line", () => {
    expect(
      describeParseError(error("ERR_PARSE_ARGS_UNKNOWN_OPTION", "Unknown option '--remtoe'. To specify…"), [
        "remote",
      ]),
    ).toBe("unknown option --remtoe (did you mean --remote?)");
    expect(
      describeParseError(error("ERR_PARSE_ARGS_UNKNOWN_OPTION", "Unknown option '--zz'."), ["remote"]),
    ).toBe("unknown option --zz");
    expect(
      describeParseError(
        error("ERR_PARSE_ARGS_INVALID_OPTION_VALUE", "Option '--remote' does not take an argument"),
        [],
      ),
    ).toBe("--remote takes no value");
    expect(
      describeParseError(error("ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL", "Unexpected argument 'x'. …"), []),
    ).toBe('unexpected argument "x"');
  });
});
