import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import t from 'tap';
import { bareWebBuild, buildTestApp } from '../helpers.js';
import { fakeProvider, keycloakDiscovery } from '../auth/fake-provider.js';
import { findAppRoot } from '../../src/kernel/config.js';

// What Keycloak imports at start-up (start-dev --import-realm). A wrong value
// here shows up as a sign-in that fails with "Invalid redirect uri" or a token
// the API refuses, so each setting the app relies on is checked.
const root = findAppRoot();
const realm = JSON.parse(readFileSync(join(root, 'keycloak', 'shower-beer-realm.json'), 'utf8'));
const client = realm.clients.find((c: { clientId: string }) => c.clientId === 'shower-beer');

t.test('the realm: self-registration, e-mail sign-in, 15-minute implicit tokens', async (t) => {
  t.equal(realm.realm, 'shower-beer', 'the realm name the compose issuer URLs use');
  t.equal(realm.enabled, true);
  t.equal(realm.registrationAllowed, true, 'people can sign up on the Keycloak page');
  t.equal(realm.loginWithEmailAllowed, true);
  t.equal(realm.accessTokenLifespanForImplicitFlow, 900);
  t.equal(realm.sslRequired, 'external', 'plain http only on localhost and private networks');
  t.equal(realm.bruteForceProtected, true);
});

t.test('the client: public, implicit flow only, redirect and logout back to the app', async (t) => {
  t.ok(client, 'client shower-beer exists');
  t.equal(client.publicClient, true, 'a browser app keeps no secret');
  t.equal(client.implicitFlowEnabled, true, 'response_type=token, as the spec asks');
  t.equal(client.standardFlowEnabled, false);
  t.equal(client.directAccessGrantsEnabled, false, 'no password grant');
  t.same(client.redirectUris, ['${APP_PUBLIC_URL}/app/account']);
  t.same(client.webOrigins, ['${APP_PUBLIC_URL}']);
  t.equal(client.attributes['post.logout.redirect.uris'], '${APP_PUBLIC_URL}/');
});

t.test('the URLs match what the app sends to Keycloak', async (t) => {
  // GET /config.json tells the browser which redirect URIs to ask for; Keycloak
  // only accepts the ones registered here (placeholders filled from APP_PUBLIC_URL).
  const publicUrl = 'https://beer.example.org';
  // Keycloak as the server reaches it inside Compose; its discovery names the public URLs.
  const keycloak = await fakeProvider(t);
  const issuer = 'https://auth.beer.example.org/realms/shower-beer';
  keycloak.route('/realms/shower-beer/.well-known/openid-configuration', keycloakDiscovery(issuer));
  const { app } = await buildTestApp(t, {
    PUBLIC_URL: publicUrl,
    AUTH_PROVIDER: 'oidc',
    OIDC_ISSUER: issuer,
    OIDC_INTERNAL_ISSUER: `${keycloak.origin}/realms/shower-beer`,
    WEB_DIST_DIR: bareWebBuild(t),
  });
  const cfg = (await app.inject({ method: 'GET', url: '/config.json' })).json();
  const fill = (s: string) => s.replaceAll('${APP_PUBLIC_URL}', publicUrl);
  t.equal(cfg.auth.clientId, client.clientId);
  t.ok(client.redirectUris.map(fill).includes(cfg.auth.redirectUri), `redirect ${cfg.auth.redirectUri} is registered`);
  t.equal(fill(client.attributes['post.logout.redirect.uris']), cfg.auth.postLogoutRedirectUri);
  t.ok(client.webOrigins.map(fill).includes(new URL(cfg.appUrl).origin), 'the app origin may call userinfo');
  t.equal(cfg.auth.authorizeUrl, 'https://auth.beer.example.org/realms/shower-beer/protocol/openid-connect/auth');
  const page = await app.inject({ method: 'GET', url: '/app/discover' });
  const csp = String(page.headers['content-security-policy'] ?? '');
  t.match(csp, /connect-src[^;]*https:\/\/auth\.beer\.example\.org/, 'the page may call Keycloak (userinfo)');
  for (const scope of cfg.auth.scope.split(' ').filter((s: string) => s !== 'openid')) {
    t.ok(client.defaultClientScopes.includes(scope), `scope ${scope} is granted by default`);
  }
});

t.test('tokens carry sub, the username and e-mail, and the API audience', async (t) => {
  for (const scope of ['basic', 'profile', 'email']) t.ok(client.defaultClientScopes.includes(scope), `default scope ${scope}`);
  const audience = client.protocolMappers.filter((m: { protocolMapper: string }) => m.protocolMapper === 'oidc-audience-mapper');
  t.equal(audience.length, 1, 'one audience mapper');
  t.equal(audience[0].protocol, 'openid-connect');
  t.equal(audience[0].config['included.custom.audience'], 'shower-beer-api');
  t.equal(audience[0].config['access.token.claim'], 'true', 'in access tokens, which the API checks');
});

t.test('no host name is hard-coded: public URLs come from placeholders', async (t) => {
  const text = readFileSync(join(root, 'keycloak', 'shower-beer-realm.json'), 'utf8');
  t.notMatch(text, /https?:\/\//, 'no literal URL');
  t.match(text, /\$\{APP_PUBLIC_URL\}/);
  t.notMatch(text, /"(secret|password|value)"\s*:/i, 'no credentials or users in the import');
});

t.test('the operator role: defined in the realm, granted to the client, put in realm_access.roles; such a token is an operator', async (t) => {
  t.same(realm.roles.realm.map((r: { name: string }) => r.name), ['shower-beer-admin']);
  t.equal(client.fullScopeAllowed, false, 'only the roles mapped to the client reach its tokens…');
  t.same(realm.scopeMappings, [{ client: 'shower-beer', roles: ['shower-beer-admin'] }], '…and the operator role is one');
  const mapper = client.protocolMappers.find((m: { protocolMapper: string }) => m.protocolMapper === 'oidc-usermodel-realm-role-mapper');
  t.match(mapper?.config, { 'claim.name': 'realm_access.roles', multivalued: 'true', 'access.token.claim': 'true' });

  // Through the OIDC path: a token signed by "Keycloak" with and without the role.
  const keycloak = await fakeProvider(t);
  const issuer = `${keycloak.origin}/realms/shower-beer`;
  keycloak.route('/realms/shower-beer/.well-known/openid-configuration', keycloakDiscovery(issuer));
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'kc1', alg: 'RS256', use: 'sig' };
  keycloak.route('/realms/shower-beer/protocol/openid-connect/certs', { keys: [jwk] });
  const { app } = await buildTestApp(t, { AUTH_PROVIDER: 'oidc', OIDC_ISSUER: issuer, ADMIN_USERNAMES: 'plainuser' });
  const token = (sub: string, username: string, roles: string[]) =>
    new SignJWT({ azp: 'shower-beer', preferred_username: username, email: `${username}@kc.test`, realm_access: { roles } })
      .setProtectedHeader({ alg: 'RS256', kid: 'kc1' })
      .setIssuer(issuer)
      .setAudience('shower-beer-api')
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  const me = async (jwt: string) => (await app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${jwt}` } })).json();
  t.match(await me(await token('kc-1', 'keeper', ['shower-beer-admin', 'offline_access'])), { username: 'keeper', isOperator: true });
  t.match(await me(await token('kc-2', 'plainuser', ['offline_access'])), { username: 'plainuser', isOperator: false }, 'ADMIN_USERNAMES means nothing with Keycloak');
  const overview = await app.inject({ method: 'GET', url: '/api/admin/overview', headers: { authorization: `Bearer ${await token('kc-1', 'keeper', ['shower-beer-admin'])}` } });
  t.equal(overview.statusCode, 200, overview.body);
});
