import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import t from 'tap';
import app from '../../src/app.js';
import { loadConfig } from '../../src/kernel/config.js';
import { fastifyOptions } from '../../src/fastify-options.js';
import { authorizeQuery, csrfFieldOf, fragmentOf } from './idp-helpers.js';

/** A port that was free a moment ago, so PUBLIC_URL can name it before the server starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A tiny browser: keeps the cookie the pages set and never follows redirects. */
function browser(base: string) {
  let cookie = '';
  return async (path: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(path, base), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!.endsWith('=') ? '' : set.split(';')[0]!;
    return res;
  };
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

t.test('over real HTTP: sign up, sign in, and the API accepts the token', async (t) => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-e2e-'));
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    WEB_DIST_DIR: join(dataDir, 'no-web'),
  });
  const server = Fastify(fastifyOptions(config));
  await server.register(fp(app), { config });
  await server.listen({ port, host: '127.0.0.1' });
  t.teardown(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = config.publicUrl;
  const query = authorizeQuery(config, { state: 'st/ate 1' });
  const oauthFields = Object.fromEntries(new URLSearchParams(query));
  const go = browser(base);

  // Sign up from the sign-in page's "Create account" link.
  const signInPage = await go(`/oauth2/authorize?${query}`);
  t.equal(signInPage.status, 200);
  const signInHtml = await signInPage.text();
  const href = /<a href="([^"]+)">Create account<\/a>/.exec(signInHtml)![1]!.replaceAll('&#38;', '&');
  const signUpPage = await go(href);
  t.equal(signUpPage.status, 200);
  const signUpHtml = await signUpPage.text();
  t.match(signUpHtml, /Create account/);
  const created = await go('/oauth2/signup', form({ ...oauthFields, csrf_token: csrfFieldOf(signUpHtml), username: 'alice', email: 'alice@example.com', password: 'cold beer 123' }));
  t.equal(created.status, 303);
  t.ok(created.headers.get('location')!.startsWith(`${base}/app/account#access_token=`));

  // Sign in again like a returning person.
  const again = await go(`/oauth2/authorize?${query}`);
  const signedIn = await go('/oauth2/authorize', form({ ...oauthFields, csrf_token: csrfFieldOf(await again.text()), username: 'alice', password: 'cold beer 123' }));
  t.equal(signedIn.status, 303);
  const location = new URL(signedIn.headers.get('location')!);
  t.equal(`${location.origin}${location.pathname}`, `${base}/app/account`, 'back to the registered redirect URI');
  const fragment = fragmentOf(location.href);
  t.equal(fragment.get('token_type'), 'Bearer');
  t.equal(fragment.get('expires_in'), '900');
  t.equal(fragment.get('state'), 'st/ate 1');
  const token = fragment.get('access_token')!;

  // The API accepts it exactly like a Keycloak token.
  const claims = await server.verifyToken(token);
  t.equal(claims.iss, base);
  t.equal(claims.preferred_username, 'alice');
  const me = await fetch(`${base}/oauth2/userInfo`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(me.status, 200);
  t.match(await me.json(), { username: 'alice', preferred_username: 'alice', email: 'alice@example.com', sub: claims.sub });
  const sync = await fetch(`${base}/api/sync-users`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  if (sync.status !== 404) {
    t.equal(sync.status, 200, 'POST /api/sync-users accepts the token');
    t.match(await sync.json(), { username: 'alice', email: 'alice@example.com' });
  }
  const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as { issuer: string };
  t.equal(discovery.issuer, base);

  // A foreign redirect URI is refused without a redirect, even for a signed-in person.
  const foreign = authorizeQuery(config, { redirect_uri: 'https://evil.example/app/account' });
  const refused = await go(`/oauth2/authorize?${foreign}`);
  t.equal(refused.status, 400);
  t.equal(refused.headers.get('location'), null);
  const refusedPost = await go(
    '/oauth2/authorize',
    form({ ...Object.fromEntries(new URLSearchParams(foreign)), csrf_token: csrfFieldOf(signInHtml), username: 'alice', password: 'cold beer 123' }),
  );
  t.equal(refusedPost.status, 400);
  t.equal(refusedPost.headers.get('location'), null);

  const logout = await go(`/oauth2/logout?client_id=shower-beer&post_logout_redirect_uri=${encodeURIComponent(`${base}/`)}`);
  t.equal(logout.status, 303);
  t.equal(logout.headers.get('location'), `${base}/`);
});
