// The transport of every API call: the bearer token, the join headers, and what a refusal does to
// the session (401 ends it; approval mode and a refused sign-up block the app). The area files
// beside this one (posts.ts, feeds.ts, ...) hold the calls, each answer typed from its schema in
// server/src/contract/; components call those, never fetch.
import { arrived, takeEarly } from '@/lib/api/early';
import { getConfig } from '@/lib/config';
import { firstPage, type ApiHost, type ListCall } from '@/lib/first-requests';
import { forgetJoin, joined, joinHeaders, setJoinBlock } from '@/lib/join';
import { endSessionRefused, endSessionUnauthorized, getToken } from '@/lib/session';

/** A first sign-in the server refused to make an account for (server/src/registration/registration-service.ts). */
const REFUSED_SIGN_UP = new Set(['registration_closed', 'invite_required', 'invite_invalid']);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The server's error code (`error` of its answer), when it gave one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  host?: ApiHost;
  credentials?: RequestCredentials;
  signal?: AbortSignal;
}

export function baseUrl(host: ApiHost): string {
  const { api } = getConfig();
  return host === 'second' ? api.secondBaseUrl : api.baseUrl;
}

/** The answer to an API call that succeeded (2xx); 401 ends the session, any other refusal throws its message. */
export async function call(path: string, opts: RequestOptions = {}, accept = 'application/json'): Promise<Response> {
  const token = getToken();
  if (!token) {
    endSessionUnauthorized();
    throw new ApiError(401, 'Not signed in');
  }
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept, ...joinHeaders() };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl(opts.host ?? 'main')}${path}`, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    credentials: opts.credentials,
    signal: opts.signal,
  });
  if (res.status === 401) {
    endSessionUnauthorized();
    throw new ApiError(401, 'Session ended');
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let message = text || res.statusText;
    let code: string | undefined;
    try {
      const body = JSON.parse(text) as { message?: string; error?: string };
      message = body.message ?? message;
      code = body.error;
    } catch {
      /* plain text answer */
    }
    // Approval mode: the whole app gives way to "Your account is waiting for an operator" (app/app-layout.tsx).
    if (res.status === 403 && code === 'account_pending') setJoinBlock('pending');
    if (res.status === 403 && code === 'account_rejected') setJoinBlock('rejected');
    if (res.status === 403 && code !== undefined && REFUSED_SIGN_UP.has(code)) {
      if (code === 'invite_invalid') forgetJoin();
      endSessionRefused(message);
    }
    throw new ApiError(res.status, message, code);
  }
  joined();
  return res;
}

/** The parsed 2xx answer to an API call. */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  // A screen's first call may have been sent by index.html already: its 2xx answer is this one.
  // Anything else (refused, failed, none) and the call is made here as usual.
  if (opts.method === undefined && opts.body === undefined) {
    const early = await takeEarly({ host: opts.host ?? 'main', path })?.answer;
    if (early !== undefined && !opts.signal?.aborted) return early as T;
  }
  return (await (await call(path, opts)).json()) as T;
}

/**
 * A list a screen opens with (lib/first-requests.ts, LISTS): its page size, each page by cursor
 * (the first without one), and `early()`, the first page if index.html has already brought it.
 */
export interface PagedCall<A> {
  limit: number;
  page(cursor: string | undefined, signal?: AbortSignal): Promise<A>;
  /** The first page, if index.html's early request for it has been answered (2xx): for the screen's first render. */
  early(): A | undefined;
}

export const paged = <A>(list: ListCall): PagedCall<A> => ({
  limit: list.limit,
  page: (cursor, signal) => request<A>(list.path({ limit: list.limit, cursor }), { host: list.host, signal }),
  early: () => arrived<A>(firstPage(list)),
});
