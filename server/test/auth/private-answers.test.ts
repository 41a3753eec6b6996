import t from 'tap';
import { bearer, buildTestApp } from '../helpers.js';

t.test('answers with personal data are never cached; public ones keep their caching', async (t) => {
  const { app, createUser } = await buildTestApp(t, { CORS_ORIGINS: 'https://other.example' });
  const alice = await createUser('alice');
  const personal = [
    ['GET', '/api/user-posts'],
    ['POST', '/api/sync-users'],
    ['GET', '/api/discover-posts'],
    ['GET', '/api/search-profiles?username=al'],
    ['GET', '/oauth2/userInfo'],
  ] as const;
  for (const [method, url] of personal) {
    const res = await app.inject({ method, url, headers: { ...bearer(alice.token), origin: 'https://other.example' } });
    t.equal(res.statusCode, 200, `${method} ${url}`);
    t.equal(res.headers['cache-control'], 'no-store', `${method} ${url}: no-store`);
    t.match(String(res.headers.vary), /Authorization/, `${method} ${url}: varies by token`);
    t.match(String(res.headers.vary), /Origin/, `${method} ${url}: CORS's Vary kept`);
  }
  const me = await app.inject({ url: '/api/user-posts', headers: bearer(alice.token) });
  t.equal(me.json().email, 'alice@example.test', 'the answer that carries the e-mail is one of them');
  const refused = await app.inject({ url: '/api/user-posts' });
  t.equal(refused.statusCode, 401);
  t.equal(refused.headers['cache-control'], 'no-store', 'refusals too');
  const config = await app.inject({ url: '/config.json' });
  t.equal(config.headers['cache-control'], 'no-cache', 'public answers keep their own caching');
});
