import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { TokenError, usernameFromClaims, type TokenClaims } from '../kernel/auth/verify.js';
import { bearerToken } from '../kernel/auth/bearer.js';
import { markPrivate } from '../kernel/auth/private-answers.js';
import { ErrorBody, unauthorized } from '../kernel/errors.js';
import type { AccountsService } from './accounts-service.js';
import { DEFAULT_SCOPE } from './oauth-params.js';

export interface DiscoveryRoutesOptions {
  accounts: AccountsService;
}

const UserInfo = Type.Object({
  sub: Type.String(),
  username: Type.String(),
  preferred_username: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
});

/**
 * The JSON side of the provider: OpenID discovery, the public key set and
 * userInfo. The API verifies embedded tokens exactly as it verifies
 * Keycloak's, from the issuer's JWKS.
 */
const discoveryRoutes: FastifyPluginAsync<DiscoveryRoutesOptions> = async (instance, { accounts }) => {
  const fastify = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = fastify.config;
  const signingKey = fastify.signingKey;
  if (!signingKey) throw new Error('the embedded identity provider needs a signing key');

  const openidConfiguration = {
    issuer: auth.issuer,
    authorization_endpoint: auth.authorizeUrl,
    userinfo_endpoint: auth.userInfoUrl,
    jwks_uri: auth.jwksUrl,
    end_session_endpoint: auth.logoutUrl,
    response_types_supported: ['token'],
    response_modes_supported: ['fragment'],
    grant_types_supported: ['implicit'],
    subject_types_supported: ['public'],
    scopes_supported: DEFAULT_SCOPE.split(' '),
    claims_supported: ['sub', 'iss', 'aud', 'azp', 'exp', 'iat', 'preferred_username', 'username', 'email'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['none'],
  };
  const jwks = { keys: [signingKey.publicJwk] };

  fastify.get('/.well-known/openid-configuration', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return openidConfiguration;
  });

  fastify.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return jwks;
  });

  fastify.get(
    '/oauth2/userInfo',
    { schema: { response: { 200: UserInfo, 401: ErrorBody } } },
    async (request, reply) => {
      markPrivate(reply);
      const token = bearerToken(request.headers.authorization);
      let claims: TokenClaims;
      try {
        claims = await fastify.verifyToken(token);
      } catch (err) {
        if (err instanceof TokenError) throw unauthorized(err.message);
        throw unauthorized('The token could not be verified right now.');
      }
      const user = fastify.users.findBySub(claims.sub);
      if (user && user.deletedAt !== null) throw unauthorized('This account no longer exists.');
      // The account's current name and e-mail; a token of ours without an account answers from its claims.
      const account = accounts.findById(claims.sub);
      const username = account?.username ?? usernameFromClaims(claims);
      return { sub: claims.sub, username, preferred_username: username, email: account?.email ?? claims.email ?? null };
    },
  );
};

export default discoveryRoutes;
