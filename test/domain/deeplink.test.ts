import { describe, expect, it } from "vitest";
import {
  ALTITUDE_PRESETS,
  altitudePresets,
  fromMeters,
  snapAltitude,
  toMeters,
  unitForLocale,
} from "../../worker/domain/deeplink/altitude";
import {
  type Authorization,
  callbackPrefixProblem,
  callbackProblem,
  callbackRedirect,
  normalizePrefix,
} from "../../worker/domain/deeplink/callbacks";
import { FIRST_PARTY_PUBLIC_ID, registerHint } from "../../worker/domain/deeplink/firstParty";
import {
  checkLinkFields,
  creationLink,
  dynamicLink,
  linkFieldsFromQuery,
} from "../../worker/domain/deeplink/link";
import { mapView, takeoffPoint } from "../../worker/domain/deeplink/mapView";
import {
  completeSelection,
  initialSelection,
  pick1Groups,
  type RulesetChoice,
  selectionProblem,
} from "../../worker/domain/deeplink/rulesets";
import type { Polygon } from "../../worker/domain/geojson";

const square: Polygon = {
  type: "Polygon",
  coordinates: [
    [
      [-118.3, 34.0],
      [-118.29, 34.0],
      [-118.29, 34.01],
      [-118.3, 34.01],
      [-118.3, 34.0],
    ],
  ],
};
const config = {
  baseUrl: "https://windsock.page.link/",
  apn: "dev.windsock.app",
  isi: "1000000001",
  ibi: "dev.windsock.app",
  ofl: "https://windsock.dev/deeplink?from=link&x=a b",
  pt: "pt&token=1",
};

describe("link building", () => {
  it("puts every creation parameter into the creation link, and it reads back unchanged", () => {
    const check = checkLinkFields(
      {
        geometry: square,
        callback_url: "https://partner.example/cb?state=a&b=c",
        altitude: 60.5,
        ruleset_ids: ["usa_part_107", "usa_sec_44809"],
      },
      "refuse",
    );
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    const link = creationLink("https://app.example/", "app_abc", check.value);
    expect(link.startsWith("https://app.example/create_flight/v1/?geometry=")).toBe(true);
    const query = new URL(link).searchParams;
    expect(JSON.parse(query.get("geometry")!)).toEqual({ geometry: square });
    expect(query.get("callback_url")).toBe("https://partner.example/cb?state=a&b=c");
    expect(query.get("altitude")).toBe("60.5");
    expect(query.has("buffer")).toBe(false);
    expect(query.get("ruleset_ids")).toBe("usa_part_107,usa_sec_44809");
    expect(query.get("client_id")).toBe("app_abc");
    const again = checkLinkFields(linkFieldsFromQuery(query), "ignore");
    expect(again).toEqual(check);
  });

  it("builds the outer link with the URI-encoded creation link and the operator's values verbatim", () => {
    const creation =
      "https://app.example/create_flight/v1/?geometry=%7B%7D&callback_url=https%3A%2F%2Fa.b%2Fc%3Fd%3De";
    const outer = dynamicLink(config, creation, "app_abc");
    expect(
      outer.startsWith("https://windsock.page.link/?link=https%3A%2F%2Fapp.example%2Fcreate_flight"),
    ).toBe(true);
    // No raw `&`, `?` or space of an inner value leaks into the outer query.
    expect(outer.split("?").length).toBe(2);
    expect(outer).not.toContain(" ");
    const params = new URL(outer).searchParams;
    expect(params.get("link")).toBe(creation);
    expect(Object.fromEntries([...params].filter(([k]) => k !== "link"))).toEqual({
      apn: config.apn,
      isi: config.isi,
      ibi: config.ibi,
      ofl: config.ofl,
      pt: config.pt,
      efr: "1",
      utm_source: "partner",
      utm_medium: "deeplink",
      utm_campaign: "laanc",
      utm_content: "app_abc",
      ct: "laanc",
      mt: "8",
    });
    expect([...params.keys()].filter((k) => k === "link")).toHaveLength(1);
  });

  it("leaves out the apps an operator has not configured, so phones open the web page", () => {
    const outer = new URL(dynamicLink({ ...config, apn: "", isi: "", ibi: "" }, "https://x/", "s"));
    expect(["apn", "isi", "ibi"].filter((name) => outer.searchParams.has(name))).toEqual([]);
    const query = new URLSearchParams(outer.search);
    expect(query.get("link")).toBe("https://x/");
  });

  it("appends to a base that already has a query", () => {
    const outer = dynamicLink({ ...config, baseUrl: "https://l.example/?d=1" }, "https://x/", "s");
    expect(outer.startsWith("https://l.example/?d=1&link=https%3A%2F%2Fx%2F&")).toBe(true);
  });

  it("names every invalid field", () => {
    const check = checkLinkFields(
      {
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0.5],
            ],
          ],
        },
        altitude: -3,
        buffer: "x",
        ruleset_ids: "USA Part 107",
      },
      "refuse",
    );
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problems.map((e) => e.field).sort()).toEqual([
      "altitude",
      "buffer",
      "geometry",
      "ruleset_ids",
    ]);
    expect(check.problems.find((e) => e.field === "geometry")!.message).toMatch(/closed/);
  });

  it("refuses a buffer on a Polygon at the builder but ignores it on the page", () => {
    const refused = checkLinkFields({ geometry: square, buffer: 50 }, "refuse");
    expect(refused.ok ? [] : refused.problems).toEqual([
      { field: "buffer", message: "applies only to LineString and Point geometries" },
    ]);
    const ignored = checkLinkFields({ geometry: square, buffer: 50 }, "ignore");
    expect(ignored.ok && ignored.value.buffer).toBeUndefined();
  });

  it("keeps a Point's buffer and defaults it when absent", () => {
    const point = { type: "Point", coordinates: [-118.3, 34.0] };
    const withBuffer = checkLinkFields({ geometry: point, buffer: "75" }, "ignore");
    expect(withBuffer.ok && withBuffer.value.buffer).toBe(75);
    expect(checkLinkFields({ geometry: point }, "refuse").ok).toBe(true);
  });

  it("answers 413 for a geometry of too many positions", () => {
    const ring = Array.from({ length: 10_001 }, (_, i) => [i / 100_000, Math.sin(i) / 1000]);
    ring.push(ring[0]!);
    const check = checkLinkFields({ geometry: { type: "Polygon", coordinates: [ring] } }, "refuse");
    expect(check.ok ? [] : check.problems).toEqual([
      { field: "geometry", message: "at most 10000 positions", tooLarge: true },
    ]);
  });

  it("reads the page's geometry parameter wrapped, bare or broken", () => {
    const wrapped = new URLSearchParams({ geometry: JSON.stringify({ geometry: square }) });
    expect(linkFieldsFromQuery(wrapped).geometry).toEqual(square);
    const bare = new URLSearchParams({ geometry: JSON.stringify(square) });
    expect(linkFieldsFromQuery(bare).geometry).toEqual(square);
    const broken = checkLinkFields(linkFieldsFromQuery(new URLSearchParams({ geometry: "{nope" })), "ignore");
    expect(broken.ok ? [] : broken.problems.map((e) => e.field)).toEqual(["geometry"]);
    const missing = checkLinkFields(linkFieldsFromQuery(new URLSearchParams()), "ignore");
    expect(missing.ok ? [] : missing.problems.map((e) => e.field)).toEqual(["geometry"]);
  });
});

describe("callback prefixes", () => {
  it("registers https prefixes and, in development only, http on localhost", () => {
    expect(callbackPrefixProblem("https://partner.example/cb", false)).toBeNull();
    expect(callbackPrefixProblem("http://partner.example/cb", true)).toMatch(/https/);
    expect(callbackPrefixProblem("http://127.0.0.1:9000/cb", true)).toBeNull();
    expect(callbackPrefixProblem("http://localhost/cb", false)).toMatch(/https/);
    expect(callbackPrefixProblem("https://user:pw@partner.example/", false)).toMatch(/user name/);
    expect(callbackPrefixProblem("https://partner.example/cb?x=1", false)).toMatch(/no query/);
    expect(callbackPrefixProblem("partner.example/cb", false)).toMatch(/absolute URL/);
    expect(callbackPrefixProblem("javascript:alert(1)", true)).toMatch(/absolute URL/);
  });

  it("normalizes host case, default ports and dot segments", () => {
    expect(normalizePrefix("https://Partner.EXAMPLE:443/a/../cb")).toBe("https://partner.example/cb");
    expect(normalizePrefix("https://partner.example")).toBe("https://partner.example/");
  });

  it("allows only callbacks under a registered prefix: no open redirect", () => {
    const prefixes = ["https://partner.example/cb", "https://other.example/"];
    const allowed = [
      "https://partner.example/cb",
      "https://partner.example/cb/done?state=1#top",
      "https://PARTNER.example:443/cb?x=y",
      "https://other.example/anything",
    ];
    for (const url of allowed) expect(callbackProblem(url, prefixes, false), url).toBeNull();
    const refused = [
      "https://partner.example/cbx",
      "https://partner.example/",
      "https://partner.example.evil.net/cb",
      "https://evil.net/?https://partner.example/cb",
      "https://partner.example@evil.net/cb",
      "http://partner.example/cb",
      "https://partner.example:8443/cb",
      "https://partner.example/cb/../../evil",
      "//evil.net/cb",
      "javascript:alert(1)//https://partner.example/cb",
    ];
    for (const url of refused) expect(callbackProblem(url, prefixes, true), url).not.toBeNull();
    expect(callbackProblem("https://partner.example/cb", [], false)).toMatch(/not registered/);
  });

  it("tells how to allow a callback: the API or command for a partner, the operator's command for the service's own app", () => {
    const partner = callbackProblem("https://partner.example/cb", [], false, registerHint("app_partner"));
    expect(partner).toMatch(/POST \/deeplink\/v1\/callbacks/);
    const own = callbackProblem("https://app.example/cb", [], false, registerHint(FIRST_PARTY_PUBLIC_ID));
    expect(own).toContain(`npm run callbacks -- add <url> --account ${FIRST_PARTY_PUBLIC_ID}`);
    expect(
      callbackProblem(
        "https://app.example/cb/x",
        ["https://app.example/cb"],
        false,
        registerHint(FIRST_PARTY_PUBLIC_ID),
      ),
    ).toBeNull();
  });

  it("encodes flight_id and the authorizations JSON, keeping the callback's own query and fragment", () => {
    const authorizations: Authorization[] = [
      {
        description: "LAANC: KSMO 200 ft & below",
        status: "accepted",
        message: "Authorized up to 200 ft + 50% = fine?",
        authority: { id: "faa-laanc", name: "FAA LAANC" },
      },
    ];
    const url = callbackRedirect(
      "https://partner.example/cb?state=a%20b&flight_id=old#frag",
      "flight|Ab1",
      authorizations,
    );
    expect(
      url.startsWith("https://partner.example/cb?state=a%20b&flight_id=flight%7CAb1&authorizations="),
    ).toBe(true);
    expect(url.endsWith("#frag")).toBe(true);
    expect(url).not.toContain("+");
    const params = new URL(url).searchParams;
    expect(params.getAll("flight_id")).toEqual(["flight|Ab1"]);
    expect(params.get("state")).toBe("a b");
    expect(JSON.parse(params.get("authorizations")!)).toEqual(authorizations);
    expect(JSON.parse(decodeURIComponent(url.split("authorizations=")[1]!.split("#")[0]!))).toEqual(
      authorizations,
    );
    expect(callbackRedirect("https://p.example/cb", "f", [])).toBe(
      "https://p.example/cb?flight_id=f&authorizations=%5B%5D",
    );
  });
});

describe("altitude presets and units", () => {
  it("picks the unit from the locale's region", () => {
    expect(unitForLocale("en-US,en;q=0.9")).toBe("imperial");
    expect(unitForLocale("en-GB,en;q=0.9")).toBe("metric");
    expect(unitForLocale("fr,en-US;q=0.5")).toBe("imperial");
    expect(unitForLocale("de-DE")).toBe("metric");
    expect(unitForLocale("zh-Hant-US")).toBe("imperial");
    expect(unitForLocale(undefined)).toBe("metric");
  });

  it("converts feet and meters both ways", () => {
    expect(toMeters(400, "imperial")).toBeCloseTo(121.92, 6);
    expect(fromMeters(121.92, "imperial")).toBeCloseTo(400, 6);
    expect(toMeters(120, "metric")).toBe(120);
  });

  it("snaps to the nearest preset in the pilot's unit", () => {
    expect(snapAltitude(121.92, "imperial").value).toBe(400);
    expect(snapAltitude(120, "imperial")).toEqual({ value: 400, label: "400 ft", meters: 121.92 });
    expect(snapAltitude(500, "imperial").value).toBe(400);
    expect(snapAltitude(1, "imperial").value).toBe(50);
    expect(snapAltitude(33, "metric").value).toBe(30);
    expect(snapAltitude(35, "metric").value).toBe(30);
    expect(snapAltitude(36, "metric").value).toBe(40);
    expect(snapAltitude(undefined, "metric").value).toBe(60);
    expect(snapAltitude(undefined, "imperial").value).toBe(200);
  });

  it("offers every preset in meters for the API", () => {
    expect(altitudePresets("imperial").map((p) => p.value)).toEqual(ALTITUDE_PRESETS.imperial);
    expect(altitudePresets("imperial")[0]).toEqual({ value: 50, label: "50 ft", meters: 15.24 });
  });
});

const federal = { id: 1, name: "United States" };
const state = { id: 2, name: "Tennessee" };
const rulesets: RulesetChoice[] = [
  {
    id: "usa_airmap_rules",
    name: "AirMap rules",
    selection_type: "required",
    default: true,
    jurisdiction: federal,
  },
  { id: "usa_part_107", name: "Part 107", selection_type: "pick1", default: true, jurisdiction: federal },
  {
    id: "usa_sec_44809",
    name: "Recreational",
    selection_type: "pick1",
    default: false,
    jurisdiction: federal,
  },
  { id: "usa_wildlife", name: "Wildlife", selection_type: "optional", default: false, jurisdiction: federal },
  { id: "usa_tn_parks", name: "TN parks", selection_type: "optional", default: true, jurisdiction: state },
  { id: "usa_tn_a", name: "TN A", selection_type: "pick1", default: false, jurisdiction: state },
  { id: "usa_tn_b", name: "TN B", selection_type: "pick1", default: false, jurisdiction: state },
];

describe("ruleset choice", () => {
  it("starts from the defaults: required, the default pick1, default optional ones", () => {
    expect(initialSelection(rulesets, undefined)).toEqual([
      "usa_airmap_rules",
      "usa_part_107",
      "usa_tn_parks",
    ]);
  });

  it("preselects ruleset_ids, one pick1 per jurisdiction, falling back to its default", () => {
    expect(
      initialSelection(rulesets, ["usa_sec_44809", "usa_part_107", "usa_wildlife", "usa_tn_b", "nope_x"]),
    ).toEqual(["usa_airmap_rules", "usa_sec_44809", "usa_wildlife", "usa_tn_b"]);
    expect(initialSelection(rulesets, ["usa_wildlife"])).toEqual([
      "usa_airmap_rules",
      "usa_part_107",
      "usa_wildlife",
    ]);
  });

  it("groups pick1 rulesets by jurisdiction and asks for exactly one in each", () => {
    expect(pick1Groups(rulesets).map((g) => [g.jurisdiction, g.rulesets.map((r) => r.id)])).toEqual([
      ["United States", ["usa_part_107", "usa_sec_44809"]],
      ["Tennessee", ["usa_tn_a", "usa_tn_b"]],
    ]);
    expect(selectionProblem(rulesets, ["usa_part_107", "usa_tn_a"])).toBeNull();
    expect(selectionProblem(rulesets, ["usa_part_107"])).toBe("choose one of: TN A, TN B");
    expect(selectionProblem(rulesets, ["usa_part_107", "usa_sec_44809", "usa_tn_a"])).toBe(
      "choose only one of: Part 107, Recreational",
    );
    expect(
      selectionProblem(
        rulesets.filter((r) => r.selection_type !== "pick1"),
        [],
      ),
    ).toBeNull();
  });

  it("always adds the required rulesets and drops ids that do not apply", () => {
    expect(completeSelection(rulesets, ["usa_tn_a", "elsewhere_x"])).toEqual([
      "usa_airmap_rules",
      "usa_tn_a",
    ]);
  });
});

describe("map and takeoff", () => {
  it("takes off at a Point, a path's start, or inside a Polygon", () => {
    expect(takeoffPoint({ type: "Point", coordinates: [1, 2] })).toEqual([1, 2]);
    expect(
      takeoffPoint({
        type: "LineString",
        coordinates: [
          [3, 4],
          [5, 6],
        ],
      }),
    ).toEqual([3, 4]);
    const [lng, lat] = takeoffPoint(square);
    expect(lng).toBeCloseTo(-118.295, 9);
    expect(lat).toBeCloseTo(34.005, 9);
    // A U shape whose vertex centroid falls in the notch takes off at a vertex instead.
    const u = {
      type: "Polygon" as const,
      coordinates: [
        [
          [0, 0],
          [3, 0],
          [3, 3],
          [2, 3],
          [2, 0.5],
          [1, 0.5],
          [1, 3],
          [0, 3],
          [0, 0],
        ] as [number, number][],
      ],
    };
    expect(takeoffPoint(u)).toEqual([0, 0]);
  });

  it("draws the area north up inside the box, and puts far advisories on its edge", () => {
    const view = mapView(square, square, [
      { latitude: 34.005, longitude: -118.295, color: "orange", name: "inside" },
      { latitude: 35, longitude: -118.295, color: "red", name: "far north" },
    ]);
    expect([view.width, view.height]).toEqual([640, 480]);
    const points = [...view.area.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    for (const [x, y] of points) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(view.width);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(view.height);
    }
    // The first ring position is the south-west corner: left and low on the drawing.
    expect(points[0]![0]).toBeLessThan(points[1]![0]!);
    expect(points[0]![1]).toBeGreaterThan(points[2]![1]!);
    const [inside, far] = view.markers;
    expect(inside!.offMap).toBe(false);
    expect(inside!.x).toBeCloseTo(view.width / 2, 0);
    expect(far!.offMap).toBe(true);
    expect(far!.y).toBe(10);
    expect(view.route).toBeUndefined();
    expect(
      mapView(
        square,
        {
          type: "LineString",
          coordinates: [
            [-118.3, 34],
            [-118.29, 34.01],
          ],
        },
        [],
      ).route,
    ).toMatch(/^M/);
  });
});
