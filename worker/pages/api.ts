import type { Account, Bindings } from "../env";
import type { FieldError } from "../lib/jsend";
import type { ApiAnswer, PageApiClient } from "../services/createFlightFlow";

const ACTING_ACCOUNT = Symbol("account the flight-creation page acts for");

/**
 * The account of an in-process call from the flight-creation page. Only `PageApi` puts it on the
 * env of the requests it dispatches, so no request from outside can claim it.
 */
export function pageAccount(env: Bindings): Account | undefined {
  return (env as unknown as { [ACTING_ACCOUNT]?: Account })[ACTING_ACCOUNT];
}

export type ApiFetch = (
  request: Request,
  env: Bindings,
  ctx?: ExecutionContext,
) => Response | Promise<Response>;

/**
 * The page is a client of the public API, like a mobile app: it sends the same requests through the
 * same worker, in-process and as the account of the link, so plans, submission and authorizations
 * follow exactly the API's rules and errors.
 */
export class PageApi implements PageApiClient {
  private readonly env: Bindings;

  constructor(
    private readonly fetch: ApiFetch,
    env: Bindings,
    account: Account,
    private readonly origin: string,
    private readonly acceptLanguage: string | undefined,
  ) {
    this.env = Object.create(env, { [ACTING_ACCOUNT]: { value: account } });
  }

  async post<T>(path: string, body: unknown, token?: string): Promise<ApiAnswer<T>> {
    return this.send<T>("POST", path, body, token);
  }

  async get<T>(path: string, token?: string): Promise<ApiAnswer<T>> {
    return this.send<T>("GET", path, undefined, token);
  }

  private async send<T>(method: string, path: string, body: unknown, token?: string): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token) headers.authorization = `Bearer ${token}`;
    if (this.acceptLanguage) headers["accept-language"] = this.acceptLanguage;
    const request = new Request(new URL(path, this.origin), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const response = await this.fetch(request, this.env);
    const json = (await response.json().catch(() => null)) as {
      status?: string;
      data?: unknown;
      message?: string;
    } | null;
    if (response.status === 200 && json?.status === "success") return { ok: true, data: json.data as T };
    const fail = (json?.data ?? {}) as { message?: string; errors?: FieldError[] };
    return {
      ok: false,
      status: response.status,
      message: fail.message ?? json?.message ?? `The service answered ${response.status}`,
      errors: Array.isArray(fail.errors) ? fail.errors : [],
    };
  }
}
