import t from 'tap';
import { RESOURCE_CSP } from '../src/kernel/security.js';
import { bareWebBuild, buildTestApp } from './helpers.js';

t.test('health and readiness answer', async (t) => {
  const { app } = await buildTestApp(t);
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(health.statusCode, 200);
  t.same(health.json(), { status: 'ok' });
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 200);
  t.equal(ready.json().checks.database, 'ok');
});

t.test('public config tells the browser where to sign in', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/config.json' });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.auth.authorizeUrl, 'http://localhost:3000/oauth2/authorize');
  t.equal(body.auth.redirectUri, 'http://localhost:3000/app/account');
  t.equal(body.auth.scope, 'email openid profile');
  t.equal(body.limits.maxUploadBytes, 100 * 1024 * 1024);
});

t.test('unknown routes answer 404 in the error shape', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/nope?x=1' });
  t.equal(res.statusCode, 404);
  t.same(res.json(), { error: 'not_found', message: 'No route for GET /nope.' });
});

t.test('pages carry the strict page policy; every other answer one that allows nothing', async (t) => {
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: bareWebBuild(t) });
  const page = await app.inject({ method: 'GET', url: '/app/discover' });
  t.equal(page.statusCode, 200);
  const pageCsp = String(page.headers['content-security-policy']);
  t.match(pageCsp, /script-src 'self'/);
  t.notMatch(pageCsp, /unsafe-inline/);
  t.match(pageCsp, /frame-ancestors 'none'/);
  t.match(pageCsp, /worker-src 'self'/, 'the page may start its service worker');
  t.match(pageCsp, /manifest-src 'self'/, 'and read its manifest');
  t.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
  t.equal(page.headers['cross-origin-opener-policy'], 'same-origin');

  // JSON, errors included, scripts and images: nothing may load from them or frame them.
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  const missing = await app.inject({ method: 'GET', url: '/api/discover-posts' });
  t.equal(missing.statusCode, 401);
  const script = await app.inject({ method: 'GET', url: '/sw.js' });
  t.match(String(script.headers['content-type']), /javascript/);
  const svg = await app.inject({ method: 'GET', url: '/logo.svg' });
  t.match(String(svg.headers['content-type']), /^image\/svg\+xml/);
  for (const [name, res] of [['/healthz', health], ['a 401', missing], ['a script', script], ['an SVG, which opened by itself could run script', svg]] as const) {
    t.equal(res.headers['content-security-policy'], RESOURCE_CSP, `${name}: default-src 'none'`);
    t.equal(res.headers['x-frame-options'], undefined, `${name}: no page-only headers`);
    t.equal(res.headers['cross-origin-opener-policy'], undefined, `${name}: no page-only headers`);
  }
  // Every answer, page or not, errors included.
  for (const res of [page, health, missing, script]) {
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    t.equal(res.headers['referrer-policy'], 'no-referrer');
    t.equal(res.headers['cross-origin-resource-policy'], 'same-origin');
    t.equal(res.headers['strict-transport-security'], undefined, 'no HSTS on a plain-http install');
  }

  // The service worker's script is governed by its own answer's policy: the page's, so it may fetch.
  const worker = await app.inject({ method: 'GET', url: '/sw.js', headers: { 'service-worker': 'script' } });
  t.equal(worker.headers['content-security-policy'], pageCsp);
  // A 304 revalidating a page has no type: the page's policy, which the browser stores with the page.
  const etag = String(page.headers.etag);
  const again = await app.inject({ method: 'GET', url: '/app/discover', headers: { 'if-none-match': etag } });
  t.equal(again.statusCode, 304);
  t.equal(again.headers['content-security-policy'], pageCsp);
});

t.test('CORS headers only for a request from an allowed origin', async (t) => {
  const { app } = await buildTestApp(t, { CORS_ORIGINS: 'http://other.example' });
  const plain = await app.inject({ method: 'GET', url: '/healthz' });
  for (const name of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers']) {
    t.equal(plain.headers[name], undefined, `no Origin: no ${name}`);
  }
  const allowed = await app.inject({ method: 'GET', url: '/healthz', headers: { origin: 'http://other.example' } });
  t.equal(allowed.headers['access-control-allow-origin'], 'http://other.example');
  t.equal(allowed.headers['access-control-allow-credentials'], 'true');
  t.equal(allowed.headers['access-control-expose-headers'], 'Content-Disposition');
  const self = await app.inject({ method: 'GET', url: '/healthz', headers: { origin: 'http://localhost:3000' } });
  t.equal(self.headers['access-control-allow-origin'], 'http://localhost:3000');
  const stranger = await app.inject({ method: 'GET', url: '/healthz', headers: { origin: 'http://evil.example' } });
  t.equal(stranger.headers['access-control-allow-origin'], undefined);
});

t.test('an https PUBLIC_URL turns on HSTS', async (t) => {
  const { app } = await buildTestApp(t, { PUBLIC_URL: 'https://beer.example.org' });
  const res = await app.inject({ method: 'GET', url: '/healthz' });
  t.match(String(res.headers['strict-transport-security']), /max-age=\d+/);
});

t.test('a bodiless POST that still says Content-Type: application/json is accepted', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const res = await app.inject({
    method: 'POST',
    url: '/api/sync-users',
    headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
  });
  t.equal(res.statusCode, 200);
  t.equal(res.json().username, 'alice');
  const broken = await app.inject({
    method: 'POST',
    url: '/api/like',
    headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
    payload: '{"postId":',
  });
  t.equal(broken.statusCode, 400);
  t.equal(broken.json().error, 'invalid_request');
});
