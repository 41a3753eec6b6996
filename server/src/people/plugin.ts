import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JWK } from 'jose';
import { bearerToken } from '../kernel/auth/bearer.js';
import { loadOrCreateSigningKey, type SigningKey } from '../kernel/auth/keys.js';
import { markPrivate } from '../kernel/auth/private-answers.js';
import { createRevocations, refuseRevoked, type Revocations } from '../kernel/auth/revocations.js';
import {
  cacheVerifiedTokens,
  createTokenVerifier,
  TokenError,
  usernameFromClaims,
  withUserInfo,
  type TokenClaims,
  type VerifyToken,
} from '../kernel/auth/verify.js';
import { createUsersRepository, type AuthUser, type UsersRepository } from './users-repository.js';
import { accountSuspended } from '../kernel/live-user.js';
import { unauthorized } from '../kernel/errors.js';
import { hasOperatorRole } from '../kernel/auth/operators.js';
import { accountPending, accountRejected, type JoinRequest } from '../registration/registration-service.js';
import { createAccountRemovalService, type AccountRemovalService } from './account-removal-service.js';
import { createSuspensionSteps, type SuspensionSteps } from './suspension.js';
import { createJoinRequestsRepository, type JoinRequestsRepository } from './join-requests-repository.js';
import type { PersonSteps } from '../kernel/person-steps.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Present with the embedded provider only: the key it signs tokens with. */
    signingKey: SigningKey | null;
    verifyToken: VerifyToken;
    /** Tokens ended by logout (kernel/auth/revocations.ts). */
    revocations: Revocations;
    users: UsersRepository;
    /** What suspending an account does, and lifting it undoes (suspension.ts): for moderation and account removal. */
    suspension: SuspensionSteps;
    /** Removing an account: its owner's (DELETE /api/account) and the operator's (npm run user:remove). */
    accountRemoval: AccountRemovalService;
    /** Accounts waiting for an operator (approval mode). */
    joinRequests: JoinRequestsRepository;
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
    /** The route answers an account waiting for an operator (approval mode) too: logout. */
    allowPending?: boolean;
  }
}

/**
 * Who is calling: token verification for any provider (kernel/auth/), the `authenticate` hook
 * that upserts the person from their token and holds back the suspended and the waiting, the
 * accounts waiting for an operator, and what removing or suspending an account does. What
 * those two do to other capabilities' rows is their own steps, handed in as `personSteps`
 * (server/src/person-steps.ts, by app.ts).
 */
export default fp<{ personSteps: readonly PersonSteps[] }>(
  async (fastify, { personSteps }) => {
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
    const { sqlite } = fastify.database;
    const { invites, registration } = fastify;
    const suspension = createSuspensionSteps(sqlite, fastify.shared.counters, personSteps, (user, at) => invites.revokeAllBy(user, 'maker_suspended', at));
    fastify.decorate('suspension', suspension);
    fastify.decorate(
      'accountRemoval',
      createAccountRemovalService({ sqlite, storage: fastify.storage, log: fastify.log, shared: fastify.shared, personSteps, suspension, invites }),
    );
    fastify.decorate('joinRequests', createJoinRequestsRepository(sqlite));
    const isFirstAccount = fastify.database.sqlite.prepare<[string], number>('SELECT is_first FROM idp_accounts WHERE id = ?').pluck();
    /**
     * What a first request brings to the person's first sign-in: the web app keeps the invite
     * code and the reason from before it sent the person to the provider and sends them as
     * X-Invite-Code and X-Join-Reason (percent-encoded UTF-8) until the account exists.
     */
    const joinRequestOf = (request: FastifyRequest, claims: TokenClaims): JoinRequest => {
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value.slice(0, 4000) : null;
      };
      let reason = header('x-join-reason');
      try {
        reason = reason === null ? null : decodeURIComponent(reason);
      } catch {
        // Not percent-encoded: kept as it came.
      }
      const bypass = config.auth.provider === 'embedded' ? isFirstAccount.get(claims.sub) === 1 : hasOperatorRole(claims);
      return { invite: header('x-invite-code'), reason, bypass };
    };
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
      const user = users.upsertFromClaims(claims.sub, usernameFromClaims(claims), claims.email ?? null, claims.iat, () =>
        registration.admit(joinRequestOf(request, claims)),
      );
      if (!user) throw unauthorized('This account no longer exists.');
      // Approval mode: nothing of the app but logout until an operator lets them in.
      if (user.joinState === 'rejected') throw accountRejected();
      if (user.joinState === 'pending' && request.routeOptions.config?.allowPending !== true) throw accountPending();
      // Suspended: nothing but who they are, their notices and logout, until an operator lifts it.
      if (user.suspendedAt !== null && request.routeOptions.config?.allowSuspended !== true) throw accountSuspended();
      request.user = user;
      request.tokenClaims = claims;
    });
  },
  { name: 'people', dependencies: ['kernel', 'registration'] },
);
