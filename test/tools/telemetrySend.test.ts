import { execFile } from "node:child_process";
import { createDecipheriv, randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseDatagram, splitRecords } from "../../proto/datagram";
import { decodeMessage, telemetrySchema } from "../../proto/messages";
import { namedFields } from "../../proto/records";
import { along, distance, line, orbit, pressureAt, sampleAt } from "../../tools/lib/flightSimulator";

const ROOT = path.join(import.meta.dirname, "../..");
const run = promisify(execFile);
/** The sender with only the given WINDSOCK_* variables (none inherited from the shell running the tests). */
const send = (args: string[], env: Record<string, string> = {}) => {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("WINDSOCK_")),
  );
  return run(process.execPath, ["--import", "tsx", "tools/telemetrySend.ts", ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
  });
};

describe("the flight simulator", () => {
  it("flies an orbit at its radius and speed, banked into the turn, with ISA pressure", () => {
    const center: [number, number] = [57.67, 11.965];
    const pattern = orbit(center, 200);
    const ground = () => 80;
    const a = sampleAt({ pattern, speed: 10, height: 40, ground }, 10, 1000, 0.2);
    const b = sampleAt({ pattern, speed: 10, height: 40, ground }, 11, 2000, 0.2);
    expect(distance(a.position, center)).toBeCloseTo(200, -1);
    expect(distance(a.position, b.position)).toBeCloseTo(10, 0);
    const [position, speed, attitude, barometer] = b.records;
    expect(position!.fields).toMatchObject({ altitude_msl: 120, altitude_agl: 40 });
    expect(Math.hypot(speed!.fields.velocity_x!, speed!.fields.velocity_y!)).toBeCloseTo(10, 2);
    // A clockwise 200 m orbit at 10 m/s: bank atan(v²/(r·g)) ≈ 2.9°.
    expect(attitude!.fields.roll).toBeGreaterThan(2);
    expect(attitude!.fields.roll).toBeLessThan(4);
    expect(barometer!.fields.pressure).toBeCloseTo(pressureAt(120), 2);
    expect(pressureAt(0)).toBeCloseTo(1013.25, 2);
  });

  it("climbs with the terrain ahead and flies a line there and back", () => {
    const pattern = line([47, 8], 100);
    const rising = (p: [number, number]) => (p[1] - 8) * 10_000;
    const s = sampleAt({ pattern, speed: 5, height: 30, ground: rising }, 2, 0, 1);
    expect(s.records[1]!.fields.velocity_z).toBeLessThan(0); // NED: climbing is negative down
    expect(along(pattern, 250).heading).toBeCloseTo(270, 0); // on the way back
  });
});

describe("npm run telemetry:send", () => {
  it("refuses unknown flags by name and says what is missing", async () => {
    await expect(send(["--frobnicate"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--frobnicate/),
    });
    await expect(send(["--flight", "f"])).rejects.toMatchObject({
      stderr: expect.stringMatching(/WINDSOCK_TOKEN.*WINDSOCK_SESSION_KEY/),
    });
    await expect(send(["--flight", "f"], { WINDSOCK_SESSION_KEY: "c2hvcnQ=" })).rejects.toMatchObject({
      stderr: expect.stringMatching(/32 bytes/),
    });
  });

  it("takes no secret as a flag, since npm echoes command lines", async () => {
    for (const [flag, variable] of [
      ["--api-key", "WINDSOCK_API_KEY"],
      ["--token", "WINDSOCK_TOKEN"],
      ["--key", "WINDSOCK_SESSION_KEY"],
    ]) {
      await expect(send(["--flight", "f", flag!, "secret"])).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`export ${variable}`),
      });
    }
    const help = (await send(["--help"])).stdout;
    expect(help).toMatch(/--pattern <p>/);
    // --help offers none of the flags it refuses.
    expect(help).not.toMatch(/--api-key|--token|--key\b/);
  });

  it("sends datagrams the relay can decrypt and decode, serials from 1", async () => {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    const received: Buffer[] = [];
    socket.on("message", (m) => received.push(m));
    const key = randomBytes(32);
    const { port } = socket.address();
    const { stdout } = await send(
      [
        ...["--flight", "flight|abc", "--center", "57.67,11.965"],
        ...["--relay", `127.0.0.1:${port}`, "--rate", "20", "--duration", "1"],
      ],
      { WINDSOCK_SESSION_KEY: key.toString("base64") },
    );
    socket.close();
    expect(stdout).toMatch(/Sent \d+ datagrams/);
    expect(received.length).toBeGreaterThan(10);
    const parsed = received.map((d) => parseDatagram(d));
    const first = parsed[0]!;
    if (typeof first === "string") throw new Error(first);
    expect(first.serial).toBe(1);
    expect(first.flightId).toBe("flight|abc");
    const decipher = createDecipheriv("aes-256-cbc", key, first.iv);
    const payload = Buffer.concat([decipher.update(first.ciphertext), decipher.final()]);
    const records = splitRecords(payload)!;
    const types = records.map((r) => telemetrySchema.byId.get(r.typeId)!.name);
    expect(types).toEqual(["position", "speed", "attitude", "barometer"]);
    const kind = telemetrySchema.byId.get(records[0]!.typeId)!;
    const message = decodeMessage(kind, records[0]!.bytes)!;
    expect(namedFields(kind, message.values).altitude_msl).toBe(40); // no API key: sea level + 40 m
  });
});
