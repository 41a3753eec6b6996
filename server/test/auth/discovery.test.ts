import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import t from 'tap';
import { discoverAuthEndpoints } from '../../src/kernel/auth/discovery.js';
import { ConfigError, loadConfig } from '../../src/kernel/config.js';
import { bareWebBuild, bearer, buildTestApp } from '../helpers.js';
import { fakeProvider, keycloakDiscovery } from './fake-provider.js';

// A provider laid out like Glewlwyd: issuer …/api/oidc, endpoints that are not
// Keycloak's, RFC 9068 access tokens that carry no username.
async function glewlwydLike(t: Parameters<typeof fakeProvider>[0]) {
  const idp = await fakeProvider(t);
  const issuer = `${idp.origin}/api/oidc`;
  const doc = {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    userinfo_endpoint: `${issuer}/userinfo`,
    jwks_uri: `${issuer}/jwks`,
    end_session_endpoint: `${issuer}/end_session`,
    response_types_supported: ['code', 'id_token', 'token id_token', 'token'],
  };
  idp.route('/api/oidc/.well-known/openid-configuration', doc);
  return { idp, issuer, doc };
}

const base = { DATA_DIR: '/tmp/unused', AUTH_PROVIDER: 'oidc', OIDC_DISCOVERY_TIMEOUT_SECONDS: '2' };

t.test('the endpoints come from the discovery document, not from Keycloak\'s layout', async (t) => {
  const { idp, issuer } = await glewlwydLike(t);
  const config = await discoverAuthEndpoints(loadConfig({ ...base, OIDC_ISSUER: issuer }));
  t.equal(config.auth.authorizeUrl, `${issuer}/auth`);
  t.equal(config.auth.jwksUrl, `${issuer}/jwks`);
  t.equal(config.auth.userInfoUrl, `${issuer}/userinfo`);
  t.equal(config.auth.userInfoServerUrl, `${issuer}/userinfo`);
  t.equal(config.auth.logoutUrl, `${issuer}/end_session`);
  t.equal(idp.hits.get('/api/oidc/.well-known/openid-configuration'), 1);
});

t.test('env vars override what discovery says; with all four set nothing is fetched', async (t) => {
  const { idp, issuer } = await glewlwydLike(t);
  const some = await discoverAuthEndpoints(loadConfig({ ...base, OIDC_ISSUER: issuer, OIDC_AUTHORIZE_URL: 'https://login.example/authorize' }));
  t.equal(some.auth.authorizeUrl, 'https://login.example/authorize');
  t.equal(some.auth.jwksUrl, `${issuer}/jwks`);
  const before = idp.hits.get('/api/oidc/.well-known/openid-configuration');
  const all = await discoverAuthEndpoints(
    loadConfig({
      ...base,
      OIDC_ISSUER: 'http://127.0.0.1:1/nowhere',
      OIDC_AUTHORIZE_URL: 'http://a.test/auth',
      OIDC_JWKS_URL: 'http://a.test/jwks',
      OIDC_USERINFO_URL: 'http://a.test/userinfo',
      OIDC_LOGOUT_URL: 'http://a.test/logout',
    }),
  );
  t.equal(all.auth.logoutUrl, 'http://a.test/logout');
  t.equal(idp.hits.get('/api/oidc/.well-known/openid-configuration'), before, 'no discovery request');
});

t.test('OIDC_LOGOUT_URL=none keeps the browser away from end_session', async (t) => {
  const { issuer } = await glewlwydLike(t);
  const config = await discoverAuthEndpoints(loadConfig({ ...base, OIDC_ISSUER: issuer, OIDC_LOGOUT_URL: 'none' }));
  t.equal(config.auth.logoutUrl, '');
  t.equal(config.auth.authorizeUrl, `${issuer}/auth`);
});

t.test('OIDC_DISCOVERY_URL points the server at a document elsewhere', async (t) => {
  const { idp, issuer, doc } = await glewlwydLike(t);
  idp.route('/elsewhere/openid-configuration', doc);
  const config = await discoverAuthEndpoints(
    loadConfig({ ...base, OIDC_ISSUER: issuer, OIDC_DISCOVERY_URL: `${idp.origin}/elsewhere/openid-configuration` }),
  );
  t.equal(config.auth.authorizeUrl, `${issuer}/auth`);
  t.equal(idp.hits.get('/elsewhere/openid-configuration'), 1);
});

t.test('Keycloak in Compose: read on the internal host, browsers get public URLs, the server internal ones', async (t) => {
  const kc = await fakeProvider(t);
  const internal = `${kc.origin}/realms/shower-beer`;
  const issuer = 'https://id.example.org/realms/shower-beer';
  kc.route('/realms/shower-beer/.well-known/openid-configuration', keycloakDiscovery(issuer, internal));
  const config = await discoverAuthEndpoints(loadConfig({ ...base, OIDC_ISSUER: issuer, OIDC_INTERNAL_ISSUER: internal }));
  // The same URLs as the Keycloak defaults the app used before discovery.
  t.equal(config.auth.authorizeUrl, `${issuer}/protocol/openid-connect/auth`);
  t.equal(config.auth.userInfoUrl, `${issuer}/protocol/openid-connect/userinfo`);
  t.equal(config.auth.logoutUrl, `${issuer}/protocol/openid-connect/logout`);
  t.equal(config.auth.jwksUrl, `${internal}/protocol/openid-connect/certs`);
  t.equal(config.auth.userInfoServerUrl, `${internal}/protocol/openid-connect/userinfo`);
});

t.test('a provider that cannot be read stops the start with a message that says what to fix', async (t) => {
  const { idp, issuer, doc } = await glewlwydLike(t);
  const start = (env: Record<string, string>) => discoverAuthEndpoints(loadConfig({ ...base, ...env }), { retryDelayMs: 50 });

  await t.rejects(start({ OIDC_ISSUER: `${idp.origin}/wrong` }), { name: 'Error', message: /discovery document at .*\/wrong\/\.well-known\/openid-configuration \(HTTP 404\).*OIDC_ISSUER/ });
  const err = await start({ OIDC_ISSUER: `${idp.origin}/wrong` }).catch((e: unknown) => e);
  t.ok(err instanceof ConfigError, 'a ConfigError: server.ts prints "Configuration error: …" and exits 1');

  idp.route('/bad/.well-known/openid-configuration', (_req, res) => res.writeHead(200).end('<html>'));
  await t.rejects(start({ OIDC_ISSUER: `${idp.origin}/bad` }), /is not JSON/);

  idp.route('/other/.well-known/openid-configuration', { ...doc, issuer: 'https://someone-else.test' });
  await t.rejects(start({ OIDC_ISSUER: `${idp.origin}/other` }), /names the issuer "https:\/\/someone-else\.test", but OIDC_ISSUER is/);

  idp.route('/nokeys/.well-known/openid-configuration', { ...doc, issuer: `${idp.origin}/nokeys`, jwks_uri: undefined });
  await t.rejects(start({ OIDC_ISSUER: `${idp.origin}/nokeys` }), /has no usable jwks_uri/);

  const started = Date.now();
  await t.rejects(start({ OIDC_ISSUER: 'http://127.0.0.1:1/realms/x', OIDC_DISCOVERY_TIMEOUT_SECONDS: '1' }), /could not read .*127\.0\.0\.1:1/);
  t.ok(Date.now() - started < 5_000, 'gives up after OIDC_DISCOVERY_TIMEOUT_SECONDS');

  // A provider still starting (503) is waited for.
  let calls = 0;
  idp.route('/slow/.well-known/openid-configuration', (_req, res) => {
    calls++;
    if (calls < 3) res.writeHead(503).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...doc, issuer: `${idp.origin}/slow` }));
  });
  const slow = await start({ OIDC_ISSUER: `${idp.origin}/slow` });
  t.equal(slow.auth.authorizeUrl, doc.authorization_endpoint);
  t.equal(issuer, doc.issuer);
});

t.test('through the app: /config.json hands out the discovered URLs; a Glewlwyd-shaped token signs its person in by name', async (t) => {
  const { idp, issuer } = await glewlwydLike(t);
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'g1', alg: 'RS256', use: 'sig' };
  idp.route('/api/oidc/jwks', { keys: [jwk] });
  const authorizations: string[] = [];
  idp.route('/api/oidc/userinfo', (req, res) => {
    authorizations.push(String(req.headers.authorization));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sub: 'glw-42', preferred_username: 'hopsgirl', email: 'hops@glew.test' }));
  });

  const { app } = await buildTestApp(t, { AUTH_PROVIDER: 'oidc', OIDC_ISSUER: issuer, WEB_DIST_DIR: bareWebBuild(t) });
  const cfg = (await app.inject({ method: 'GET', url: '/config.json' })).json();
  t.equal(cfg.auth.authorizeUrl, `${issuer}/auth`);
  t.equal(cfg.auth.userInfoUrl, `${issuer}/userinfo`);
  t.equal(cfg.auth.logoutUrl, `${issuer}/end_session`);
  const csp = String((await app.inject({ method: 'GET', url: '/app/discover' })).headers['content-security-policy']);
  t.match(csp, new RegExp(`connect-src[^;]*${idp.origin.replace(/[.]/g, '\\.')}`), 'the page may call the provider\'s userinfo');

  const token = await new SignJWT({ client_id: 'shower-beer', scope: 'openid email profile', jti: 'x' })
    .setProtectedHeader({ alg: 'RS256', kid: 'g1', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience('openid email profile')
    .setSubject('glw-42')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);
  const sync = await app.inject({ method: 'POST', url: '/api/sync-users', headers: bearer(token) });
  t.equal(sync.statusCode, 200, sync.body);
  t.match(sync.json(), { username: 'hopsgirl', email: 'hops@glew.test' }, 'the real username, not Beer Lover');
  const mine = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(token) });
  t.equal(mine.json().username, 'hopsgirl');
  t.same(authorizations, [`Bearer ${token}`], 'userinfo asked once, with the person\'s own token');

  // userinfo down: the request is refused as "try again", nobody is renamed.
  idp.route('/api/oidc/userinfo', (_req, res) => res.writeHead(502).end());
  const other = await new SignJWT({ client_id: 'shower-beer' })
    .setProtectedHeader({ alg: 'RS256', kid: 'g1', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience('openid email profile')
    .setSubject('glw-42')
    .setIssuedAt()
    .setExpirationTime('9m')
    .sign(privateKey);
  const down = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(other) });
  t.equal(down.statusCode, 401);
  t.match(down.json(), { error: 'unauthorized', message: 'The token could not be verified right now.' });
  t.equal((await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(token) })).json().username, 'hopsgirl');
});
