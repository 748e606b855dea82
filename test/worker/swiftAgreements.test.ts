import { env, SELF } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as schema from "../../schema";
import { saveAgreement } from "../../worker/store/agreements";
import { type FakeProvider, fakeProvider } from "./fakeProvider";
import { BASE, createAccount, type TestAccount, tokenFor } from "./helpers";

/**
 * The Swift SDK's agreements and logout, sent exactly as it sends them (airmap/AirMapSDK-Swift
 * 0fbabab, Alamofire 4.9: `Source/Core/Clients/HTTPClient.swift` 70–80 headers, 310–312 encodings)
 * and read as its ObjectMapper models read them (`Source/Core/Models/Agreements/`).
 */

let account: TestAccount;
let pilot: { token: string; pilotId: string };
const db = () => drizzle(env.DB, { schema });

const TERMS = {
  id: "swift-laanc-terms",
  authorityId: "faa-laanc",
  version: "1.0.0",
  type: "TERMS_AND_CONDITIONS",
  title: "LAANC terms (test)",
  text: "# LAANC terms\n\nSubmit only flights you **will** fly; see [the FAA](https://www.faa.gov/uas).\n\n- one\n- two",
};

beforeAll(async () => {
  account = await createAccount("swift agreements");
  pilot = await tokenFor(account, "swift-agreeing-pilot");
  await saveAgreement(db(), TERMS);
  await saveAgreement(db(), { ...TERMS, id: "swift-other-authority", authorityId: "windsock" });
});

/** HTTPClient.defaultHeaders (HTTPClient.swift 70–80): Accept JSON, X-API-Key, the bearer when signed in. */
function swiftHeaders(token?: string): Record<string, string> {
  return {
    Accept: "application/json",
    "X-API-Key": account.apiKey,
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
}

/** Base `https://api.<domain>/agreements/v2` (Constants.swift 48–50, 70–79). */
const agreementsUrl = (path: string) => `${BASE}/agreements/v2${path}`;

/** airMapSerializer with keyPath "data" (HTTPClient.swift 82, 440–464): the JSON under `data`. */
async function dataOf(res: Response): Promise<any> {
  expect(res.status, await res.clone().text()).toBeLessThan(400);
  return ((await res.json()) as any).data;
}

/** AirMapAgreement.init(map:) (AirMapAgreement.swift 44–48): id and version required, type optional. */
function mapAgreement(json: any) {
  expect(typeof json.id).toBe("string");
  expect(typeof json.version).toBe("string");
  expect(json.type === undefined || json.type === null || json.type === "TERMS_AND_CONDITIONS").toBe(true);
  return { id: json.id as string, version: json.version as string, type: json.type as string | null };
}

describe("AgreementsClient (AgreementsClient.swift 31–69)", () => {
  it("anonymousListAgreements (line 32): GET /authority/{id}, API key only, maps AirMapAgreement", async () => {
    const res = await SELF.fetch(agreementsUrl("/authority/faa-laanc"), { headers: swiftHeaders() });
    const list = (await dataOf(res)).map(mapAgreement);
    expect(list).toContainEqual({ id: TERMS.id, version: "1.0.0", type: "TERMS_AND_CONDITIONS" });
    expect(list.map((a: { id: string }) => a.id)).not.toContain("swift-other-authority");
  });

  it("an authority with no agreements is an empty list; a pilot's token does not change the list", async () => {
    const none = await SELF.fetch(agreementsUrl("/authority/nobody"), { headers: swiftHeaders() });
    expect(await dataOf(none)).toEqual([]);
    const signedIn = await SELF.fetch(agreementsUrl("/authority/faa-laanc"), {
      headers: swiftHeaders(pilot.token),
    });
    expect((await dataOf(signedIn)).map(mapAgreement)).toContainEqual(
      mapAgreement({ ...TERMS, type: TERMS.type }),
    );
  });

  it("listAgreements + hasAgreedToAgreement + agreeToAgreement (lines 35–42, 56–69) with the pilot's token", async () => {
    const listed = (
      await dataOf(
        await SELF.fetch(agreementsUrl("/authority/faa-laanc"), { headers: swiftHeaders(pilot.token) }),
      )
    ).map(mapAgreement);
    // getAgreement (71–77): each agreement's /agreed, AirMapAgreementStatus (AirMapAgreementStatus.swift 112–114).
    const agreedUrl = agreementsUrl(`/agreement/${listed.find((a: any) => a.id === TERMS.id).id}/agreed`);
    const before = await dataOf(await SELF.fetch(agreedUrl, { headers: swiftHeaders(pilot.token) }));
    expect(before.has_agreed_to_latest_version).toBe(false);

    // agreeToAgreement: JSONEncoding (POST), `agree_date` as Date.iso8601String (Date+AirMap.swift 25–31,
    // Constants.swift 82 `yyyy-MM-dd'T'HH:mm:ss.SSSZ`); the answer is read by the Void serializer.
    const agreeDate = new Date(Date.now() - 1000).toISOString().replace("Z", "+0000");
    const agreed = await SELF.fetch(agreementsUrl(`/agreement/${TERMS.id}/agree`), {
      method: "POST",
      headers: { ...swiftHeaders(pilot.token), "Content-Type": "application/json" },
      body: JSON.stringify({ agree_date: agreeDate }),
    });
    expect(agreed.status, await agreed.clone().text()).toBe(200);
    expect((await agreed.json()) as any).toMatchObject({ status: "success" });

    const after = await dataOf(await SELF.fetch(agreedUrl, { headers: swiftHeaders(pilot.token) }));
    expect(after.has_agreed_to_latest_version).toBe(true);
    expect(after.agreed_at).toBe(new Date(Date.parse(agreeDate)).toISOString());
  });

  it("a new version asks the pilot again; another pilot has not agreed", async () => {
    const other = await tokenFor(account, "swift-other-pilot");
    await saveAgreement(db(), { ...TERMS, id: "swift-versioned", version: "1.0.0" });
    const agree = (token: string) =>
      SELF.fetch(agreementsUrl("/agreement/swift-versioned/agree"), {
        method: "POST",
        headers: { ...swiftHeaders(token), "Content-Type": "application/json" },
        body: JSON.stringify({ agree_date: new Date().toISOString().replace("Z", "+0000") }),
      });
    const status = async (token: string) =>
      (
        await dataOf(
          await SELF.fetch(agreementsUrl("/agreement/swift-versioned/agreed"), {
            headers: swiftHeaders(token),
          }),
        )
      ).has_agreed_to_latest_version;
    expect((await agree(pilot.token)).status).toBe(200);
    expect(await status(pilot.token)).toBe(true);
    expect(await status(other.token)).toBe(false);
    await saveAgreement(db(), { ...TERMS, id: "swift-versioned", version: "1.1.0" });
    expect(await status(pilot.token)).toBe(false);
  });

  it("getAgreementDocument (line 44–47): with_markdown as Alamofire writes a Bool (1/0); maps document.text", async () => {
    const markdown = await dataOf(
      await SELF.fetch(agreementsUrl(`/agreement/${TERMS.id}?with_markdown=1`), { headers: swiftHeaders() }),
    );
    // AirMapAgreementDocument.init (AirMapAgreementDocument.swift 79–81): `document.text`, required.
    expect(markdown.document.text).toBe(TERMS.text);
    const plain = await dataOf(
      await SELF.fetch(agreementsUrl(`/agreement/${TERMS.id}?with_markdown=0`), { headers: swiftHeaders() }),
    );
    expect(plain.document.text).toBe(
      "LAANC terms\n\nSubmit only flights you will fly; see the FAA (https://www.faa.gov/uas).\n\n• one\n• two",
    );
  });

  it("getAgreementPDF (line 49–53): the raw bytes of a PDF of the agreement", async () => {
    const res = await SELF.fetch(agreementsUrl(`/agreement/${TERMS.id}/pdf`), {
      headers: swiftHeaders(pilot.token),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const text = new TextDecoder("latin1").decode(await res.arrayBuffer());
    expect(text.startsWith("%PDF-1.4")).toBe(true);
    expect(text.trimEnd().endsWith("%%EOF")).toBe(true);
    expect(text).toContain("(LAANC terms \\(test\\) \\(version 1.0.0\\)) Tj");
    expect(text).toContain("see the FAA \\(https://www.faa.gov/uas\\).");
    // The cross-reference table points at each object.
    const xref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(xref, xref + 4)).toBe("xref");
    const offsets = Array.from(text.matchAll(/(\d{10}) 00000 n /g), (m) => Number(m[1]));
    expect(offsets.length).toBeGreaterThanOrEqual(5);
    for (const [i, offset] of offsets.entries())
      expect(text.slice(offset, offset + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`);
  });

  it("errors: unknown agreement 404 (AirMapError.client), the pilot's routes 401 without a token, a future date 400", async () => {
    const unknown = await SELF.fetch(agreementsUrl("/agreement/nope"), { headers: swiftHeaders() });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).status).toBe("fail");
    for (const path of [`/agreement/${TERMS.id}/agreed`, `/agreement/${TERMS.id}/pdf`]) {
      const res = await SELF.fetch(agreementsUrl(path), { headers: swiftHeaders() });
      expect(res.status).toBe(401);
      await res.body?.cancel();
    }
    const future = await SELF.fetch(agreementsUrl(`/agreement/${TERMS.id}/agree`), {
      method: "POST",
      headers: { ...swiftHeaders(pilot.token), "Content-Type": "application/json" },
      body: JSON.stringify({ agree_date: new Date(Date.now() + 86_400_000).toISOString() }),
    });
    expect(future.status).toBe(400);
    expect(((await future.json()) as any).data.errors[0].name).toBe("agree_date");
  });
});

describe("AirMap.logout (OpenIdClient.swift 32–42)", () => {
  let provider: FakeProvider;
  let asked: string[];
  let accessToken: string;
  beforeAll(async () => {
    provider = await fakeProvider("https://login-logout.example.com");
    await provider.trustedBy(account.accountId);
    await env.DB.prepare("UPDATE identity_providers SET discovery_url = ? WHERE account_id = ?")
      .bind(`${provider.issuer}/.well-known/openid-configuration`, account.accountId)
      .run();
    accessToken = await provider.token("swift-user");
  });
  afterEach(() => vi.restoreAllMocks());

  /**
   * The SDK's request: POST `<issuer>protocol/openid-connect/logout` with the issuer
   * `https://auth.<domain>/realms/airmap/` (Constants.swift 89), URLEncoding.httpBody (keys sorted,
   * `application/x-www-form-urlencoded; charset=utf-8`), the SDK's headers and its access token.
   */
  const logout = (form: string) =>
    SELF.fetch(`${BASE}/realms/airmap/protocol/openid-connect/logout`, {
      method: "POST",
      headers: {
        ...swiftHeaders(accessToken),
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
      },
      body: form,
    });

  it("revokes the refresh token at the provider's revocation endpoint and answers 204 (no body: the Void serializer's empty data)", async () => {
    asked = provider.serve({ "swift-user": "pw" });
    const res = await logout(`client_id=${provider.clientId}&refresh_token=refresh-good`);
    expect(res.status, await res.clone().text()).toBe(204);
    expect(res.headers.get("x-refresh-token-revoked")).toBe("true");
    expect(asked).toEqual(["revoke refresh-good"]);
  });

  it("no refresh_token: 400 invalid_request; a provider that cannot be reached: 502", async () => {
    asked = provider.serve({});
    const missing = await logout(`client_id=${provider.clientId}`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error).toBe("invalid_request");
    vi.restoreAllMocks();
    vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("connection refused"));
    // The discovery document is cached per isolate: the revocation itself fails.
    const unreachable = await logout(`client_id=${provider.clientId}&refresh_token=refresh-good`);
    expect(unreachable.status).toBe(502);
    expect(((await unreachable.json()) as any).error).toBe("temporarily_unavailable");
  });
});
