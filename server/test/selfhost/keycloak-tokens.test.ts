import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import t from 'tap';
import { bearer, buildTestApp } from '../helpers.js';
import { keycloakDiscovery } from '../auth/fake-provider.js';

// The compose stack's situation, for real over HTTP: browsers get tokens whose
// issuer is Keycloak's public URL (http://localhost:8080/realms/shower-beer),
// while the app fetches the signing keys from another host name (keycloak:8080
// in compose; 127.0.0.1:<port> here). Tokens are shaped like Keycloak's: RS256
// with a kid, preferred_username, email, azp = the client, aud = the API
// audience added by the realm's audience mapper.

const ISSUER = 'http://localhost:8080/realms/shower-beer';
const CLIENT_ID = 'shower-beer';
const AUDIENCE = 'shower-beer-api';
const KID = 'kc-rsa-1';

const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
const other = await generateKeyPair('RS256');
const jwk: JWK = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };

let jwksRequests = 0;
let discoveryRequests = 0;
const jwksServer: Server = createServer((req, res) => {
  if (req.url === '/realms/shower-beer/.well-known/openid-configuration') {
    // KC_HOSTNAME (public) with KC_HOSTNAME_BACKCHANNEL_DYNAMIC: asked on the internal host,
    // Keycloak names its public issuer and front-channel URLs and internal back-channel ones.
    discoveryRequests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keycloakDiscovery(ISSUER, internalIssuer)));
  } else if (req.url === '/realms/shower-beer/protocol/openid-connect/certs') {
    jwksRequests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  } else {
    res.writeHead(404).end();
  }
});
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));
const internalIssuer = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/realms/shower-beer`;

const OIDC_ENV = {
  AUTH_PROVIDER: 'oidc',
  OIDC_ISSUER: ISSUER,
  OIDC_INTERNAL_ISSUER: internalIssuer,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_AUDIENCE: AUDIENCE,
};

interface Claims {
  sub?: string;
  preferred_username?: string;
  email?: string;
  azp?: string;
  aud?: string | string[];
  iss?: string;
  expiresIn?: string | number;
  /** iat in seconds (default: now). */
  iat?: number;
  key?: CryptoKey;
}

/** A token as Keycloak's implicit flow issues it, with overrides. */
function keycloakToken(c: Claims = {}) {
  const sub = c.sub ?? randomUUID();
  const jwt = new SignJWT({
    typ: 'Bearer',
    azp: c.azp ?? CLIENT_ID,
    scope: 'openid email profile',
    preferred_username: c.preferred_username ?? 'hoppy',
    email: c.email ?? 'hoppy@example.test',
    email_verified: false,
    ...(c.aud === undefined ? { aud: AUDIENCE } : { aud: c.aud }),
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: KID })
    .setSubject(sub)
    .setIssuer(c.iss ?? ISSUER)
    .setIssuedAt(c.iat)
    .setJti(randomUUID())
    .setExpirationTime(c.expiresIn ?? '15m');
  return jwt.sign(c.key ?? privateKey);
}

t.test('config: the issuer stays public, the keys come from the internal host', async (t) => {
  const before = discoveryRequests;
  const { config } = await buildTestApp(t, OIDC_ENV);
  t.equal(discoveryRequests, before + 1, 'the discovery document was read from the internal host');
  t.equal(config.auth.issuer, ISSUER);
  t.equal(config.auth.jwksUrl, `${internalIssuer}/protocol/openid-connect/certs`);
  t.equal(config.auth.authorizeUrl, `${ISSUER}/protocol/openid-connect/auth`, 'browsers are sent to the public host');
  t.equal(config.auth.userInfoUrl, `${ISSUER}/protocol/openid-connect/userinfo`, 'the browser calls the public userinfo');
  t.equal(config.auth.userInfoServerUrl, `${internalIssuer}/protocol/openid-connect/userinfo`);
  t.equal(config.auth.logoutUrl, `${ISSUER}/protocol/openid-connect/logout`);
  t.equal(config.auth.audience, AUDIENCE);
});

t.test('a Keycloak token signs a person in: sync-users and their own posts', async (t) => {
  const { app } = await buildTestApp(t, OIDC_ENV);
  const before = jwksRequests;
  const token = await keycloakToken({ preferred_username: 'hoppy', email: 'hoppy@example.test' });

  const sync = await app.inject({ method: 'POST', url: '/api/sync-users', headers: bearer(token) });
  t.equal(sync.statusCode, 200, sync.body);
  t.match(sync.json(), { username: 'hoppy', email: 'hoppy@example.test' });
  t.ok(jwksRequests > before, 'the keys were fetched from the internal host');

  const mine = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(token) });
  t.equal(mine.statusCode, 200, mine.body);
  t.match(mine.json(), { username: 'hoppy', posts: [] });
});

t.test('a token with only azp = the client (no audience mapper) is accepted too', async (t) => {
  const { app } = await buildTestApp(t, OIDC_ENV);
  const token = await keycloakToken({ aud: 'account', preferred_username: 'azpuser' });
  const res = await app.inject({ method: 'POST', url: '/api/sync-users', headers: bearer(token) });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().username, 'azpuser');
});

t.test('tokens the API must refuse', async (t) => {
  const { app } = await buildTestApp(t, OIDC_ENV);
  const cases: [string, Promise<string>][] = [
    ['issued by the internal host name instead of the public one', keycloakToken({ iss: internalIssuer })],
    ['from another realm', keycloakToken({ iss: 'http://localhost:8080/realms/master' })],
    ['for another audience and another client', keycloakToken({ aud: 'other-api', azp: 'other-client' })],
    ['expired', keycloakToken({ expiresIn: Math.floor(Date.now() / 1000) - 120 })],
    ['signed by another key under the same kid', keycloakToken({ key: other.privateKey })],
  ];
  for (const [why, pending] of cases) {
    const token = await pending;
    const res = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(token) });
    t.equal(res.statusCode, 401, why);
    t.equal(res.json().error, 'unauthorized', why);
    await t.rejects(app.verifyToken(token), why);
  }
  const expired = await app.inject({
    method: 'POST',
    url: '/api/sync-users',
    headers: bearer(await keycloakToken({ expiresIn: Math.floor(Date.now() / 1000) - 120 })),
  });
  t.match(expired.json().message, /expired/i, 'an expired token says so');
});

t.test('when the keys cannot be fetched, tokens are refused, not trusted', async (t) => {
  const { app } = await buildTestApp(t, { ...OIDC_ENV, OIDC_JWKS_URL: 'http://127.0.0.1:1/certs' });
  const res = await app.inject({ method: 'POST', url: '/api/sync-users', headers: bearer(await keycloakToken()) });
  t.equal(res.statusCode, 401);
});

t.test('Delete account with Keycloak: tokens from before stay refused; signing in again starts an empty account', async (t) => {
  const { app } = await buildTestApp(t, OIDC_ENV);
  const sub = randomUUID();
  const before = await keycloakToken({ sub, preferred_username: 'returner', email: 'returner@example.test' });
  const friend = await keycloakToken({ preferred_username: 'friend', email: 'friend@example.test' });
  t.equal((await app.inject({ method: 'POST', url: '/api/sync-users', headers: bearer(friend) })).statusCode, 200);
  t.equal((await app.inject({ method: 'POST', url: '/api/account/friend/follow', headers: bearer(before) })).statusCode, 200);
  const followersOfFriend = async () =>
    (await app.inject({ method: 'GET', url: '/api/view-user-posts?username=friend', headers: bearer(friend) })).json().followerCount;
  t.equal(await followersOfFriend(), 1);

  const removed = await app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(before), payload: { confirmUsername: 'returner' } });
  t.equal(removed.statusCode, 200, removed.body);
  t.equal(await followersOfFriend(), 0);

  // A token issued before the deletion (another tab's) stays refused, and makes no account.
  const older = await keycloakToken({ sub, preferred_username: 'returner', email: 'returner@example.test', iat: Math.floor(Date.now() / 1000) - 5 });
  for (const token of [before, older]) {
    const res = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(token) });
    t.equal(res.statusCode, 401, 'a token from before the deletion');
  }

  // The Keycloak account is still there: its next sign-in (a token issued later) is a new person here.
  const after = await keycloakToken({ sub, preferred_username: 'returner', email: 'returner@example.test', iat: Math.floor(Date.now() / 1000) + 2 });
  const mine = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(after) });
  t.equal(mine.statusCode, 200, mine.body);
  t.match(mine.json(), { username: 'returner', posts: [], postCount: 0, followingCount: 0, followerCount: 0 });
  t.equal(await followersOfFriend(), 0, 'the old follow did not come back');
  const bell = await app.inject({ method: 'GET', url: '/api/me', headers: bearer(after) });
  t.equal(bell.statusCode, 200, bell.body);
  t.equal(bell.json().username, 'returner');
  const search = await app.inject({ method: 'GET', url: '/api/search-profiles?username=returner', headers: bearer(friend) });
  t.same(search.json().map((p: { username: string }) => p.username), ['returner'], 'one account by that name, the new one');
});
