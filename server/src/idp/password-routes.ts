import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { issueAccessToken } from '../kernel/auth/issue.js';
import { resetLinkUrl, resetMail } from './password-resets.js';
import { badRequest, conflict, HttpError, notFound } from '../kernel/errors.js';
import { PasswordChanged, ResetLink } from '../contract/answers.js';
import { ErrorBody, UsernameParams, writeErrors } from '../kernel/route-schemas.js';

const PasswordChange = Type.Object(
  {
    currentPassword: Type.String({ maxLength: 1000, description: 'The password the account has now.' }),
    newPassword: Type.String({ maxLength: 1000, description: 'The new password: the sign-up rules apply (at least 8 characters, not easy to guess).' }),
  },
  { additionalProperties: false },
);

const NOT_EMBEDDED =
  'Passwords are kept by the sign-in service this server uses, not by Shower Beer: change or reset them there.';

/**
 * Passwords of the embedded provider through the API: the owner changes theirs
 * (PUT /api/account/password) and an operator makes a one-time reset link
 * (POST /api/admin/users/:username/password-reset). The provider's own pages for
 * "Forgot password?" and the link are in idp/page-routes.ts.
 */
const passwordRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify;

  fastify.put(
    '/account/password',
    { schema: { body: PasswordChange, response: { 200: PasswordChanged, ...writeErrors, 409: ErrorBody } } },
    async (request) => {
      if (config.auth.provider !== 'embedded' || !fastify.signingKey) throw conflict(NOT_EMBEDDED);
      const { currentPassword, newPassword } = request.body;
      if (currentPassword === '') throw badRequest('Type your current password.');
      const result = await fastify.idp.accounts.changePassword(request.user.sub, currentPassword, newPassword, request.ip);
      if (!result.ok) {
        if (result.reason === 'throttled') {
          const minutes = Math.ceil(result.retryAfterSeconds / 60);
          throw new HttpError(
            429,
            'rate_limited',
            `Too many wrong passwords for this account. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
            { 'retry-after': String(result.retryAfterSeconds) },
          );
        }
        if (result.reason === 'missing') throw notFound('Your account does not exist.');
        throw new HttpError(400, result.reason === 'current' ? 'wrong_password' : 'weak_password', result.message);
      }
      const jti = randomUUID();
      const accessToken = await issueAccessToken(fastify.signingKey, config.auth, {
        sub: request.user.sub,
        username: request.user.username,
        email: request.user.email ?? '',
        operator: fastify.operators.isOperator(request.user.id),
        jti,
      });
      // Every other session ends; this one goes on with the token above.
      fastify.revocations.endAllSessions(request.user.sub, jti);
      return { accessToken, expiresIn: config.auth.tokenTtlSeconds };
    },
  );

  fastify.post(
    '/admin/users/:username/password-reset',
    // The one operator check (moderation/plugin.ts), before the params are validated: 403 for anyone else.
    { onRequest: fastify.requireOperator, schema: { params: UsernameParams, response: { 200: ResetLink, ...writeErrors, 403: ErrorBody, 409: ErrorBody } } },
    async (request) => {
      if (config.auth.provider !== 'embedded') throw conflict(NOT_EMBEDDED);
      const name = request.params.username.trim();
      const account = name.includes('@') ? undefined : fastify.idp.accounts.findByIdentifier(name);
      if (!account) throw notFound(`Nobody here has the username ${name}.`);
      const op = { id: request.user.id, username: request.user.username };
      const { token, expiresAt } = fastify.idp.resets.create(account.id, { op, username: account.username });
      const url = resetLinkUrl(config.publicUrl, token);
      let emailed = false;
      const { mailer } = fastify.idp;
      if (mailer) {
        try {
          await mailer.send(resetMail(account, url, config.publicUrl, true));
          emailed = true;
        } catch (err) {
          // The operator still has the link to hand over; the log says why the mail did not go (never the link).
          request.log.warn({ err: (err as Error).message }, 'the reset e-mail could not be sent');
        }
      }
      return { url, expiresAt: new Date(expiresAt).toISOString(), emailed };
    },
  );
};

export default passwordRoutes;
