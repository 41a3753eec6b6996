import type { FastifyInstance } from 'fastify';
import type { Config } from '../../src/kernel/config.js';

/** The query string the web app sends to /oauth2/authorize. */
export function authorizeQuery(config: Config, overrides: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: 'token',
    client_id: config.auth.clientId,
    redirect_uri: `${config.publicUrl}/app/account`,
    scope: 'email openid profile',
    state: 'xyz 123/ü',
    ...overrides,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return q.toString();
}

/** `name=value` of the CSRF cookie a page set. */
export function cookieOf(setCookie: string | string[] | undefined): string {
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!first) throw new Error('no set-cookie header');
  return first.split(';')[0]!;
}

export function csrfFieldOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no csrf_token field in the page');
  return match[1]!;
}

/** Opens a form page (sign-in or sign-up) the way a browser does: its cookie and hidden fields. */
export async function openForm(app: FastifyInstance, config: Config, page: 'authorize' | 'signup', overrides: Record<string, string | undefined> = {}) {
  const res = await app.inject({ method: 'GET', url: `/oauth2/${page}?${authorizeQuery(config, overrides)}` });
  if (res.statusCode !== 200) throw new Error(`GET /oauth2/${page} answered ${res.statusCode}`);
  return { cookie: cookieOf(res.headers['set-cookie']), csrf: csrfFieldOf(res.body), html: res.body };
}

/** Submits a form as application/x-www-form-urlencoded, with the OAuth fields of a valid request. */
export async function submit(
  app: FastifyInstance,
  config: Config,
  page: 'authorize' | 'signup',
  fields: Record<string, string | undefined>,
  cookie?: string,
) {
  const body = new URLSearchParams(authorizeQuery(config));
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) body.delete(k);
    else body.set(k, v);
  }
  return app.inject({
    method: 'POST',
    url: `/oauth2/${page}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    payload: body.toString(),
  });
}

/** Opens the sign-up page and creates an account through it. */
export async function signUp(app: FastifyInstance, config: Config, user: { username: string; email: string; password: string }) {
  const form = await openForm(app, config, 'signup');
  return submit(app, config, 'signup', { ...user, csrf_token: form.csrf }, form.cookie);
}

export async function signIn(app: FastifyInstance, config: Config, username: string, password: string) {
  const form = await openForm(app, config, 'authorize');
  return submit(app, config, 'authorize', { username, password, csrf_token: form.csrf }, form.cookie);
}

/** The parameters in a redirect's fragment. */
export function fragmentOf(location: string): URLSearchParams {
  const hash = location.indexOf('#');
  if (hash < 0) throw new Error(`no fragment in ${location}`);
  return new URLSearchParams(location.slice(hash + 1));
}
