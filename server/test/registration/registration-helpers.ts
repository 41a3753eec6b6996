import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type { FastifyInstance } from 'fastify';
import { fakeProvider, keycloakDiscovery } from '../auth/fake-provider.js';
import { buildTestApp } from '../helpers.js';
import { fragmentOf, openForm, submit } from '../idp/idp-helpers.js';
import type { Config } from '../../src/kernel/config.js';

type T = Parameters<typeof buildTestApp>[0];

/** A server behind a Keycloak stand-in; `token` signs a first (or later) sign-in's access token. */
export async function keycloakApp(t: T, env: Record<string, string> = {}) {
  const keycloak = await fakeProvider(t);
  const issuer = `${keycloak.origin}/realms/shower-beer`;
  keycloak.route('/realms/shower-beer/.well-known/openid-configuration', keycloakDiscovery(issuer));
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'kc1', alg: 'RS256', use: 'sig' };
  keycloak.route('/realms/shower-beer/protocol/openid-connect/certs', { keys: [jwk] });
  const built = await buildTestApp(t, { AUTH_PROVIDER: 'oidc', OIDC_ISSUER: issuer, ...env });
  const token = (sub: string, username: string, operator = false) =>
    new SignJWT({ azp: 'shower-beer', preferred_username: username, email: `${username}@kc.test`, realm_access: { roles: operator ? ['shower-beer-admin'] : [] } })
      .setProtectedHeader({ alg: 'RS256', kid: 'kc1' })
      .setIssuer(issuer)
      .setAudience('shower-beer-api')
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  return { ...built, token };
}

/** Sign-up through the embedded provider's page with extra fields (invite, reason, agree); `query` goes on the page's link. */
export async function signUpWith(
  app: FastifyInstance,
  config: Config,
  user: { username: string; password?: string },
  fields: Record<string, string | undefined> = {},
  query: Record<string, string | undefined> = {},
) {
  const form = await openForm(app, config, 'signup', query);
  return submit(
    app,
    config,
    'signup',
    { username: user.username, email: `${user.username}@example.test`, password: user.password ?? 'quiet harbour lantern', csrf_token: form.csrf, ...query, ...fields },
    form.cookie,
  );
}

export const tokenOf = (location: string | undefined) => fragmentOf(String(location)).get('access_token')!;

export const countUsers = (app: FastifyInstance) =>
  app.database.sqlite.prepare<[], number>('SELECT count(*) FROM users WHERE deleted_at IS NULL').pluck().get()!;
