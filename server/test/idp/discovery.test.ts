import t from 'tap';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { issueAccessToken } from '../../src/kernel/auth/issue.js';
import { buildTestApp, bearer } from '../helpers.js';
import { fragmentOf, signUp } from './idp-helpers.js';

const MANY = { RATE_LIMIT_AUTH_PER_MINUTE: '1000' };

t.test('OpenID discovery describes the provider', async (t) => {
  const { app } = await buildTestApp(t, MANY);
  const res = await app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['cache-control'], /max-age=/);
  t.match(res.json(), {
    issuer: 'http://localhost:3000',
    authorization_endpoint: 'http://localhost:3000/oauth2/authorize',
    userinfo_endpoint: 'http://localhost:3000/oauth2/userInfo',
    jwks_uri: 'http://localhost:3000/.well-known/jwks.json',
    end_session_endpoint: 'http://localhost:3000/oauth2/logout',
    response_types_supported: ['token'],
    scopes_supported: ['email', 'openid', 'profile'],
    id_token_signing_alg_values_supported: ['RS256'],
    subject_types_supported: ['public'],
  });
});

t.test('the JWKS publishes the public key that verifies issued tokens, and nothing private', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const res = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  t.equal(res.statusCode, 200);
  const jwks = res.json();
  t.equal(jwks.keys.length, 1);
  const [key] = jwks.keys;
  t.match(key, { kty: 'RSA', alg: 'RS256', use: 'sig', kid: String, n: String, e: 'AQAB' });
  for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) t.notOk(secret in key, `no ${secret}`);

  const signed = await signUp(app, config, { username: 'alice', email: 'alice@example.com', password: 'hoppy lager 42' });
  const token = fragmentOf(String(signed.headers.location)).get('access_token')!;
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: config.auth.issuer, audience: config.auth.clientId });
  t.equal(protectedHeader.kid, key.kid);
  t.equal(payload.preferred_username, 'alice');
  t.equal((payload.exp ?? 0) - (payload.iat ?? 0), 900, 'tokens live 15 minutes');
});

t.test('userInfo answers for a valid token only', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const signed = await signUp(app, config, { username: 'alice', email: 'alice@example.com', password: 'hoppy lager 42' });
  const token = fragmentOf(String(signed.headers.location)).get('access_token')!;

  const res = await app.inject({ method: 'GET', url: '/oauth2/userInfo', headers: bearer(token) });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cache-control'], 'no-store');
  const body = res.json();
  t.same(Object.keys(body).sort(), ['email', 'preferred_username', 'sub', 'username']);
  t.match(body, { username: 'alice', preferred_username: 'alice', email: 'alice@example.com', sub: String });
  const row = app.database.sqlite.prepare('SELECT id FROM idp_accounts WHERE username = ?').get('alice') as { id: string };
  t.equal(body.sub, row.id, 'sub is the account id');

  const missing = await app.inject({ method: 'GET', url: '/oauth2/userInfo' });
  t.equal(missing.statusCode, 401);
  t.match(missing.json(), { error: 'unauthorized', message: /bearer token is missing/ });
  t.equal(missing.headers['www-authenticate'], 'Bearer');

  const garbage = await app.inject({ method: 'GET', url: '/oauth2/userInfo', headers: bearer('abc.def.ghi') });
  t.equal(garbage.statusCode, 401);
  t.match(garbage.json(), { error: 'unauthorized', message: String });

  const malformed = await app.inject({ method: 'GET', url: '/oauth2/userInfo', headers: { authorization: 'Basic YWxpY2U6cHc=' } });
  t.equal(malformed.statusCode, 401);

  // A token signed with some other key, even with the right issuer and audience, is refused.
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const forged = await new SignJWT({ preferred_username: 'alice', email: 'alice@example.com' })
    .setProtectedHeader({ alg: 'RS256', kid: (await exportJWK(publicKey)).kid ?? 'other' })
    .setIssuer(config.auth.issuer)
    .setAudience(config.auth.clientId)
    .setSubject(row.id)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);
  const forgedRes = await app.inject({ method: 'GET', url: '/oauth2/userInfo', headers: bearer(forged) });
  t.equal(forgedRes.statusCode, 401, 'a forged token is refused');

  const stale = await issueAccessToken(app.signingKey!, config.auth, { sub: row.id, username: 'alice', email: 'alice@example.com' }, -60);
  const expired = await app.inject({ method: 'GET', url: '/oauth2/userInfo', headers: bearer(stale) });
  t.equal(expired.statusCode, 401, 'an expired token is refused');
  t.match(expired.json().message, /expired/);
});

t.test('userInfo follows the account, and refuses a deleted API user', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const signed = await signUp(app, config, { username: 'alice', email: 'alice@example.com', password: 'hoppy lager 42' });
  const token = fragmentOf(String(signed.headers.location)).get('access_token')!;
  const claims = await app.verifyToken(token);
  app.database.sqlite.prepare('UPDATE users SET deleted_at = ? WHERE sub = ?').run(Date.now(), claims.sub);
  const res = await app.inject({ method: 'GET', url: '/oauth2/userInfo', headers: bearer(token) });
  t.equal(res.statusCode, 401);
  t.match(res.json(), { error: 'unauthorized', message: 'This account no longer exists.' });
});
