import { describe, expect, it } from "vitest";
import { loopbackAllowed, outboundUrlProblem } from "../../worker/domain/outboundUrl";

const strict = { allowLoopback: false };
const problem = (url: string) => outboundUrlProblem(url, strict);

describe("outboundUrlProblem", () => {
  it("accepts https to public names and addresses", () => {
    expect(problem("https://hooks.example.com/windsock?team=7")).toBeNull();
    expect(problem("https://hooks.example.com:8443/x")).toBeNull();
    expect(problem("https://8.8.8.8/hook")).toBeNull();
    expect(problem("https://[2606:4700:4700::1111]/hook")).toBeNull();
  });

  it("refuses what is not an absolute https URL, credentials and fragments", () => {
    expect(problem("hooks.example.com/x")).toMatch(/absolute URL/);
    expect(problem("not a url")).toMatch(/absolute URL/);
    expect(problem("http://hooks.example.com/x")).toBe("must use https");
    expect(problem("ftp://hooks.example.com/x")).toBe("must use https");
    expect(problem("https://user:pw@hooks.example.com/x")).toMatch(/user name/);
    expect(problem("https://hooks.example.com/x#frag")).toMatch(/fragment/);
    expect(problem(`https://a.com/${"x".repeat(2100)}`)).toMatch(/absolute URL/);
  });

  it.each([
    // Issue #27's list, as the attacker sent it.
    ["https://169.254.169.254/latest/meta-data/", "link-local"],
    ["https://10.0.0.1/", "private"],
    ["https://[::ffff:127.0.0.1]/", "loopback"],
    ["https://metadata.google.internal/", "internal name"],
    ["https://127.0.0.1:9464", "loopback"],
    // IPv4 spellings that fetch resolves to an address: decimal, hex, octal, short forms.
    ["https://2130706433/", "loopback"],
    ["https://0x7f000001/", "loopback"],
    ["https://0x7f.1/", "loopback"],
    ["https://0177.0.0.1/", "loopback"],
    ["https://127.1/", "loopback"],
    ["https://0x0a.0.0.1/", "private"],
    ["https://167772161/", "private"],
    ["https://0xA9.0xFE.0xA9.0xFE/", "link-local"],
    ["https://192.168.1.1./", "private"],
    ["https://172.16.0.1/", "private"],
    ["https://100.64.0.1/", "carrier-grade NAT"],
    ["https://224.0.0.1/", "multicast"],
    ["https://255.255.255.255/", "broadcast"],
    ["https://0.0.0.0/", "unspecified"],
    ["https://240.0.0.1/", "reserved"],
    ["https://192.0.2.1/", "reserved"],
    // IPv6, and IPv6 forms that carry an IPv4 address.
    ["https://[::1]/", "loopback"],
    ["https://[::]/", "unspecified"],
    ["https://[fe80::1]/", "link-local"],
    ["https://[fd00::1]/", "unique local"],
    ["https://[ff02::1]/", "multicast"],
    ["https://[::ffff:a9fe:a9fe]/", "link-local"],
    ["https://[::ffff:10.0.0.1]/", "private"],
    ["https://[::127.0.0.1]/", "reserved"],
    ["https://[64:ff9b::7f00:1]/", "NAT64"],
    ["https://[2002:7f00:1::]/", "6to4"],
    ["https://[2001:0:4136:e378::1]/", "teredo"],
    ["https://[2001:db8::1]/", "reserved"],
    // Names no public DNS answers for.
    ["https://localhost/", "local or internal name"],
    ["https://localhost./", "local or internal name"],
    ["https://LOCALHOST/", "local or internal name"],
    ["https://api.localhost/", "local or internal name"],
    ["https://printer.local/", "local or internal name"],
    ["https://router.home.arpa/", "local or internal name"],
    ["https://intranet/", "single-label name"],
  ])("refuses %s (%s)", (url, why) => {
    expect(problem(url)).toContain(why);
    expect(problem(url)).toMatch(/^must name a public host/);
  });

  it("lets development opt in to this machine only, and http only there", () => {
    const dev = { allowLoopback: true };
    expect(outboundUrlProblem("http://127.0.0.1:8787/hook", dev)).toBeNull();
    expect(outboundUrlProblem("https://localhost/hook", dev)).toBeNull();
    expect(outboundUrlProblem("http://[::1]:9/hook", dev)).toBeNull();
    expect(outboundUrlProblem("http://10.0.0.1/hook", dev)).toMatch(/https/);
    expect(outboundUrlProblem("https://10.0.0.1/hook", dev)).toMatch(/private/);
    expect(outboundUrlProblem("https://127.0.0.2/hook", dev)).toMatch(/loopback/);
    expect(problem("http://127.0.0.1:8787/hook")).toBe("must use https");
  });

  it("honours the opt-in only in development", () => {
    expect(loopbackAllowed("development", "true")).toBe(true);
    expect(loopbackAllowed("development", undefined)).toBe(false);
    expect(loopbackAllowed("development", "1")).toBe(false);
    expect(loopbackAllowed("production", "true")).toBe(false);
  });
});
