import t from 'tap';
import { buildTestApp } from './helpers.js';

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

t.test('responses carry a strict Content-Security-Policy', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/healthz' });
  const csp = String(res.headers['content-security-policy']);
  t.match(csp, /script-src 'self'/);
  t.notMatch(csp, /unsafe-inline/);
  t.match(csp, /frame-ancestors 'none'/);
  t.equal(res.headers['x-content-type-options'], 'nosniff');
  t.equal(res.headers['referrer-policy'], 'no-referrer');
  t.equal(res.headers['cross-origin-resource-policy'], 'same-origin');
  t.equal(res.headers['strict-transport-security'], undefined, 'no HSTS on a plain-http install');
  // Every answer carries them, errors included.
  const missing = await app.inject({ method: 'GET', url: '/api/discover-posts' });
  t.equal(missing.statusCode, 401);
  t.equal(missing.headers['content-security-policy'], res.headers['content-security-policy']);
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
