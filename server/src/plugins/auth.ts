import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JWK } from 'jose';
import { bearerToken } from '../auth/bearer.js';
import { loadOrCreateSigningKey, type SigningKey } from '../auth/keys.js';
import { markPrivate } from '../auth/private-answers.js';
import { createRevocations, refuseRevoked, type Revocations } from '../auth/revocations.js';
import {
  cacheVerifiedTokens,
  createTokenVerifier,
  TokenError,
  usernameFromClaims,
  withUserInfo,
  type TokenClaims,
  type VerifyToken,
} from '../auth/verify.js';
import { createUsersRepository, type AuthUser, type UsersRepository } from '../domain/users-repository.js';
import { accountSuspended } from '../domain/live-user.js';
import { createOperatorsRepository, type OperatorsRepository } from '../domain/operators-repository.js';
import { unauthorized } from '../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Present with the embedded provider only: the key it signs tokens with. */
    signingKey: SigningKey | null;
    verifyToken: VerifyToken;
    /** Tokens ended by logout (auth/revocations.ts). */
    revocations: Revocations;
    users: UsersRepository;
    /** Operator grants of the embedded provider's accounts (auth/operators.ts decides who is one). */
    operators: OperatorsRepository;
    /** preHandler for routes that need a signed-in user; sets request.user. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
  interface FastifyRequest {
    user: AuthUser;
    tokenClaims: TokenClaims;
  }
  interface FastifyContextConfig {
    /** The route answers a suspended account too (GET /api/me, logout, the notices of removals). */
    allowSuspended?: boolean;
  }
}

export default fp(
  async (fastify) => {
    const { config } = fastify;
    const signingKey = config.auth.provider === 'embedded' ? await loadOrCreateSigningKey(config.dataDir) : null;
    const localKeys: JWK[] | undefined = signingKey ? [signingKey.publicJwk] : undefined;
    const revocations = createRevocations(fastify.database.sqlite);
    // A provider whose tokens name no user is asked once per token (userInfoServerUrl is '' for the embedded one).
    // Revoked tokens (logout) are refused after the cache, so a cached token is refused too.
    const verifyCached = cacheVerifiedTokens(withUserInfo(createTokenVerifier(config.auth, localKeys), config.auth.userInfoServerUrl));
    const verifyToken = refuseRevoked(verifyCached, revocations);
    const users = createUsersRepository(fastify.database.sqlite);

    fastify.decorate('signingKey', signingKey);
    fastify.decorate('verifyToken', verifyToken);
    fastify.decorate('revocations', revocations);
    fastify.decorate('users', users);
    fastify.decorate('operators', createOperatorsRepository(fastify.database.sqlite, config.auth));
    fastify.decorateRequest('user', null as unknown as AuthUser);
    fastify.decorateRequest('tokenClaims', null as unknown as TokenClaims);

    fastify.decorate('authenticate', async (request: FastifyRequest, reply: FastifyReply) => {
      markPrivate(reply);
      const token = bearerToken(request.headers.authorization);
      let claims: TokenClaims;
      try {
        claims = await verifyCached(token);
        // The revocation check of verifyToken, inline: one await less on every API request.
        const refused = revocations.refusal(claims);
        if (refused) throw new TokenError(refused);
      } catch (err) {
        if (err instanceof TokenError) throw unauthorized(err.message);
        // JWKS unreachable and the like: the token could not be checked, so it is not accepted.
        request.log.warn({ err: (err as Error).message }, 'token verification failed');
        throw unauthorized('The token could not be verified right now.');
      }
      const user = users.upsertFromClaims(claims.sub, usernameFromClaims(claims), claims.email ?? null, claims.iat);
      if (!user) throw unauthorized('This account no longer exists.');
      // Suspended: nothing but who they are, their notices and logout, until an operator lifts it.
      if (user.suspendedAt !== null && request.routeOptions.config?.allowSuspended !== true) throw accountSuspended();
      request.user = user;
      request.tokenClaims = claims;
    });
  },
  { name: 'auth', dependencies: ['db'] },
);
