import formbody from '@fastify/formbody';
import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import { issueAccessToken } from '../kernel/auth/issue.js';
import { errorHandler, HttpError } from '../kernel/errors.js';
import type { JoinRequest } from '../registration/registration-service.js';
import type { Account, AccountsService } from './accounts-service.js';
import { MESSAGES } from './accounts-service.js';
import { createSignUpGuard } from './signup-guard.js';
import { clearCsrfCookie, csrfCookie, csrfTokenFor, csrfValid } from './csrf.js';
import {
  checkAuthorizeParams,
  registeredPostLogoutUri,
  single,
  type ParamsCheck,
} from './oauth-params.js';
import { authorizeQuery, forgotPage, INVITE_TEXTS, forgotSentPage, messagePage, resetPage, signInPage, signUpPage, withServerName, type AuthorizeParams } from './pages.js';
import { RESET_MESSAGES, resetLinkUrl, resetMail } from './password-resets.js';
import { operatorNames } from '../registration/instance-routes.js';
import { IDP_CSS, IDP_CSS_VERSION } from './styles.js';

export interface PageRoutesOptions {
  accounts: AccountsService;
}

const CSRF_MESSAGE = 'This form expired or did not come from this page, so nothing was sent. Please try again.';

/**
 * The provider's HTML pages: sign-in (/oauth2/authorize), sign-up
 * (/oauth2/signup), "Forgot password?" (/oauth2/forgot), a reset link's page
 * (/oauth2/reset), sign-out (/oauth2/logout) and their stylesheet.
 * Encapsulated (not wrapped with fastify-plugin) so the form-body parser and
 * the HTML error pages apply to these routes only.
 */
const pageRoutes: FastifyPluginAsync<PageRoutesOptions> = async (fastify, { accounts }) => {
  const { config } = fastify;
  const signingKey = fastify.signingKey;
  if (!signingKey) throw new Error('the embedded identity provider needs a signing key');
  const secure = config.publicUrl.startsWith('https://');
  const home = registeredPostLogoutUri(config);
  // Per address and per route (sign-in and sign-up each).
  const rateLimit = { max: config.rateLimits.authPerMinute, timeWindow: '1 minute' };

  const signUpGuard = createSignUpGuard(fastify.database.sqlite, { maxPerWindow: config.login.signUpEmailTakenPerHour });

  await fastify.register(formbody, { bodyLimit: 16 * 1024 });

  const html = (reply: FastifyReply, status: number, body: string, csrfToken?: string) => {
    reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8');
    if (csrfToken) reply.header('set-cookie', csrfCookie(csrfToken, secure));
    return reply.send(withServerName(body, fastify.instanceSettings.get()));
  };

  const invalidLink = (reply: FastifyReply, message: string) =>
    html(reply, 400, messagePage({ title: 'This sign-in link is not valid', message, link: { href: home, text: 'Go to Shower Beer' } }));

  // Limits, bad bodies and surprises answer as pages too: a person is looking at them.
  fastify.setErrorHandler((err: FastifyError, request, reply) => {
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status === 429) {
      return html(reply, 429, messagePage({ title: 'Too many attempts', message: `${err.message} This protects your account.` }));
    }
    if (status >= 400 && status < 500) {
      return html(reply, status, messagePage({ title: 'That did not work', message: err.message, link: { href: home, text: 'Go to Shower Beer' } }));
    }
    return errorHandler(err, request, reply);
  });

  /**
   * Signs the account in: an access token in the redirect URI's fragment. Its first sign-in makes
   * its users row, so the registration mode decides here (registration/registration-service.ts): a
   * refusal is shown on the page and nothing is written.
   */
  const finish = async (
    reply: FastifyReply,
    account: Account,
    params: AuthorizeParams,
    page: (error: string) => string,
    csrfToken: string,
    join: JoinRequest = {},
    /** The sign-in account was made by this request (sign-up): undone if the app refuses it. */
    justMade = false,
  ) => {
    let user;
    try {
      user = fastify.users.upsertFromClaims(account.id, account.username, account.email, undefined, () =>
        fastify.registration.admit({ invite: params.invite, ...join, bypass: account.isFirst }),
      );
    } catch (err) {
      if (err instanceof HttpError && err.statusCode < 500) {
        // The invite was checked before the account was made, but two sign-ups can race for its
        // last use: the one refused here leaves no sign-in account behind, so its name and e-mail
        // are free to sign up again with another invite.
        if (justMade) accounts.delete(account.id);
        return html(reply, err.statusCode, page(err.message), csrfToken);
      }
      throw err;
    }
    // Removed: the answer of a wrong password (accounts-service refuses these first; this is the backstop).
    if (!user) return html(reply, 400, page(MESSAGES.wrongCredentials), csrfToken);
    // Said only to someone who gave the right password: it tells them nothing about anyone else.
    if (user.joinState === 'rejected') return html(reply, 403, page(fastify.registration.rejectedMessage), csrfToken);
    // A pending account is signed in: the app shows it "Your account is waiting for an operator".
    if (user.suspendedAt !== null && user.joinState === null) return html(reply, 403, page(MESSAGES.suspended), csrfToken);
    // The grant is recorded on the account the first time it is an operator (moderation/operators-repository.ts);
    // the token's role only mirrors it, for clients that read it.
    const operator = fastify.operators.isOperator(user.id);
    // Right after a password change (the same second), a new token would look as old as the cutoff.
    const wait = fastify.revocations.msUntilPastCutoff(account.id);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const token = await issueAccessToken(signingKey, config.auth, { sub: account.id, username: account.username, email: account.email, operator });
    let fragment = `access_token=${token}&token_type=Bearer&expires_in=${config.auth.tokenTtlSeconds}`;
    // The account was made just now: the app greets it with its welcome once (web/src/lib/session.ts).
    // OAuth clients ignore response parameters they do not know, so other apps are not troubled by it.
    if (justMade) fragment += '&new_account=1';
    if (params.state) fragment += `&state=${encodeURIComponent(params.state)}`;
    return reply.code(303).header('cache-control', 'no-store').header('location', `${params.redirect_uri}#${fragment}`).send();
  };

  const text = (body: unknown, name: string) => single(body, name) ?? '';

  fastify.get('/oauth2/assets/idp.css', async (request, reply) => {
    const current = single(request.query, 'v') === IDP_CSS_VERSION;
    return reply
      .type('text/css; charset=utf-8')
      .header('cache-control', current ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
      .send(IDP_CSS);
  });

  fastify.get('/oauth2/authorize', async (request, reply) => {
    const check = checkAuthorizeParams(request.query, config);
    if (!check.ok) return invalidLink(reply, check.message);
    const csrfToken = csrfTokenFor(request.headers.cookie);
    return html(reply, 200, signInPage({ params: check.params, csrfToken }), csrfToken);
  });

  fastify.post('/oauth2/authorize', { config: { rateLimit } }, async (request, reply) => {
    const check: ParamsCheck = checkAuthorizeParams(request.body, config);
    if (!check.ok) return invalidLink(reply, check.message);
    const { params } = check;
    const identifier = text(request.body, 'username').trim().slice(0, 254);
    const password = text(request.body, 'password');
    const csrfToken = csrfTokenFor(request.headers.cookie);
    const page = (error: string) => signInPage({ params, csrfToken, identifier, error });

    if (!csrfValid(request.headers.cookie, single(request.body, 'csrf_token'))) {
      return html(reply, 403, page(CSRF_MESSAGE), csrfToken);
    }
    if (identifier === '' || password === '') {
      return html(reply, 400, page('Enter your username or email and your password.'), csrfToken);
    }
    const result = await accounts.signIn(identifier, password, request.ip);
    if (!result.ok) {
      if (result.reason === 'throttled') {
        const minutes = Math.ceil(result.retryAfterSeconds / 60);
        reply.header('retry-after', String(result.retryAfterSeconds));
        return html(
          reply,
          429,
          page(`Too many failed sign-in attempts for this account. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`),
          csrfToken,
        );
      }
      return html(reply, 400, page(MESSAGES.wrongCredentials), csrfToken);
    }
    return finish(reply, result.account, params, page, csrfToken);
  });

  /** The sign-up page's part of the registration mode, or null when the server takes nobody (closed). */
  const joinSettings = () => {
    const settings = fastify.instanceSettings.get();
    if (settings.registrationMode === 'closed') return null;
    return { mode: settings.registrationMode, rules: settings.rules, serverName: settings.name, membersCanInvite: settings.membersCanInvite };
  };
  const closedPage = (reply: FastifyReply, params: AuthorizeParams) =>
    html(
      reply,
      403,
      messagePage({
        title: 'Sign-up is closed',
        message: 'This server is not taking new accounts. If you already have one, sign in.',
        link: { href: `/oauth2/authorize?${authorizeQuery(params)}`, text: 'Sign in' },
      }),
    );

  fastify.get('/oauth2/signup', async (request, reply) => {
    const check = checkAuthorizeParams(request.query, config);
    if (!check.ok) return invalidLink(reply, check.message);
    const join = joinSettings();
    if (!join) return closedPage(reply, check.params);
    const csrfToken = csrfTokenFor(request.headers.cookie);
    return html(reply, 200, signUpPage({ params: check.params, csrfToken, join }), csrfToken);
  });

  fastify.post('/oauth2/signup', { config: { rateLimit } }, async (request, reply) => {
    const check = checkAuthorizeParams(request.body, config);
    if (!check.ok) return invalidLink(reply, check.message);
    const { params } = check;
    const username = text(request.body, 'username').trim().slice(0, 100);
    const email = text(request.body, 'email').trim().slice(0, 300);
    const password = text(request.body, 'password');
    const reason = text(request.body, 'reason').slice(0, 2000);
    const csrfToken = csrfTokenFor(request.headers.cookie);
    const joinSetting = joinSettings();
    if (!joinSetting) return closedPage(reply, params);
    const join = { ...joinSetting, reason };
    const agreed = single(request.body, 'agree') === 'yes';
    const page = (error: string) => signUpPage({ params, csrfToken, username, email, error, join, agreed });
    // A refused invite: the invite field is the one in error, with whom to ask for a link.
    const inviteRefused = (error: string) => signUpPage({ params, csrfToken, username, email, error, join, agreed, inviteError: INVITE_TEXTS.ask(join) });

    if (!csrfValid(request.headers.cookie, single(request.body, 'csrf_token'))) {
      return html(reply, 403, page(CSRF_MESSAGE), csrfToken);
    }
    // Checked before the account is made, so a refused sign-up leaves no sign-in account behind.
    // No invite on an invite-only server first: ticking the rules would not help.
    if (join.mode === 'invite' && !params.invite) {
      return html(reply, 400, inviteRefused(INVITE_TEXTS.missing(join.serverName)), csrfToken);
    }
    if (join.rules.length > 0 && !agreed) {
      return html(reply, 400, page(`Please agree to the rules of ${join.serverName} to join.`), csrfToken);
    }
    if (params.invite && join.mode !== 'open') {
      try {
        fastify.invites.check(params.invite);
      } catch (err) {
        if (err instanceof HttpError) return html(reply, err.statusCode, (join.mode === 'invite' ? inviteRefused : page)(err.message), csrfToken);
        throw err;
      }
    }
    const wait = signUpGuard.check(request.ip, () => accounts.isEmailTaken(email));
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60);
      reply.header('retry-after', String(wait));
      return html(reply, 429, page(`Too many sign-up attempts from your network. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`), csrfToken);
    }
    const result = await accounts.signUp({ username, email, password });
    if (!result.ok) {
      return html(reply, 400, signUpPage({ params, csrfToken, username, email, errors: result.errors, join, agreed }), csrfToken);
    }
    return finish(reply, result.account, params, join.mode === 'invite' ? inviteRefused : page, csrfToken, { reason }, true);
  });

  const { resets } = fastify.idp;

  // "Forgot password?" says whom to ask and how (issue 48): the operator page's contact, else the operators' names.
  const operatorContact = () => ({ contact: fastify.instanceSettings.get().contact, names: operatorNames(fastify) });

  fastify.get('/oauth2/forgot', async (request, reply) => {
    const check = checkAuthorizeParams(request.query, config);
    if (!check.ok) return invalidLink(reply, check.message);
    const csrfToken = csrfTokenFor(request.headers.cookie);
    return html(reply, 200, forgotPage({ params: check.params, csrfToken, canEmail: fastify.idp.mailer !== null, operator: operatorContact() }), csrfToken);
  });

  /**
   * Sends a reset link to the account the name or e-mail belongs to. The answer is
   * the same page, at the same speed (the e-mail goes after the answer), whether or
   * not an account matched; the requests are counted like sign-in attempts, per
   * typed name and address (login-throttle.ts), in a count of their own.
   */
  fastify.post('/oauth2/forgot', { config: { rateLimit } }, async (request, reply) => {
    const check = checkAuthorizeParams(request.body, config);
    if (!check.ok) return invalidLink(reply, check.message);
    const { params } = check;
    const identifier = text(request.body, 'username').trim().slice(0, 254);
    const csrfToken = csrfTokenFor(request.headers.cookie);
    const { mailer } = fastify.idp;
    const page = (error: string) => forgotPage({ params, csrfToken, canEmail: mailer !== null, identifier, error, operator: operatorContact() });
    if (!csrfValid(request.headers.cookie, single(request.body, 'csrf_token'))) return html(reply, 403, page(CSRF_MESSAGE), csrfToken);
    if (!mailer) return html(reply, 200, page(''), csrfToken);
    if (identifier === '') return html(reply, 400, page('Enter your username or email.'), csrfToken);
    const reserved = accounts.reserveResetRequest(identifier, request.ip);
    if (!reserved.ok) {
      const minutes = Math.ceil(reserved.retryAfterSeconds / 60);
      reply.header('retry-after', String(reserved.retryAfterSeconds));
      return html(reply, 429, page(`Too many reset requests for this name. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`), csrfToken);
    }
    const account = accounts.findByIdentifier(identifier);
    if (account && !resets.mailedRecently(account.id)) {
      const { token } = resets.create(account.id, null);
      const message = resetMail(account, resetLinkUrl(config.publicUrl, token), config.publicUrl, false);
      // Never awaited: a slow mail server must not tell the asker that an account matched.
      mailer.send(message).catch((err: Error) => request.log.warn({ err: err.message }, 'the reset e-mail could not be sent'));
    }
    return html(reply, 200, forgotSentPage(params), csrfToken);
  });

  const resetLinkProblem = (reply: FastifyReply, problem: keyof typeof RESET_MESSAGES) =>
    html(
      reply,
      problem === 'unknown' ? 400 : 410,
      messagePage({ title: 'This reset link cannot be used', message: RESET_MESSAGES[problem], link: { href: home, text: 'Go to Shower Beer' } }),
    );

  fastify.get('/oauth2/reset', async (request, reply) => {
    const token = single(request.query, 'token') ?? '';
    const valid = resets.check(token);
    if (!valid.ok) return resetLinkProblem(reply, valid.problem);
    const account = accounts.findForPassword(valid.accountId)!;
    const csrfToken = csrfTokenFor(request.headers.cookie);
    return html(reply, 200, resetPage({ token, csrfToken, username: account.username }), csrfToken);
  });

  fastify.post('/oauth2/reset', { config: { rateLimit } }, async (request, reply) => {
    const token = text(request.body, 'token');
    const password = text(request.body, 'password');
    const csrfToken = csrfTokenFor(request.headers.cookie);
    const valid = resets.check(token);
    if (!valid.ok) return resetLinkProblem(reply, valid.problem);
    const username = accounts.findForPassword(valid.accountId)!.username;
    if (!csrfValid(request.headers.cookie, single(request.body, 'csrf_token'))) {
      return html(reply, 403, resetPage({ token, csrfToken, username, error: CSRF_MESSAGE }), csrfToken);
    }
    const result = await resets.redeem(token, password);
    if (!result.ok) {
      if (result.problem === 'password') return html(reply, 400, resetPage({ token, csrfToken, username, error: result.message }), csrfToken);
      return resetLinkProblem(reply, result.problem);
    }
    // Every token issued so far stops working: whoever had the old password is signed out.
    fastify.revocations.endAllSessions(result.accountId);
    return html(
      reply,
      200,
      messagePage({
        title: 'Your password is changed',
        message: 'Every session signed in with the old password has ended. Sign in with your new password.',
        link: { href: home, text: 'Go to Shower Beer' },
      }),
    );
  });

  fastify.get('/oauth2/logout', async (request, reply) => {
    const clientId = single(request.query, 'client_id');
    const target = single(request.query, 'post_logout_redirect_uri');
    const state = single(request.query, 'state');
    const signOutLink = (message: string) =>
      html(reply, 400, messagePage({ title: 'This sign-out link is not valid', message, link: { href: home, text: 'Go to Shower Beer' } }));
    if (clientId === null || target === null || state === null) return signOutLink('Each parameter must be given once.');
    if (clientId !== undefined && clientId !== config.auth.clientId) {
      return signOutLink('The application asking you to sign out is not known here (unknown client_id).');
    }
    // No single-sign-on session is kept; the form cookie is all there is to forget.
    reply.header('set-cookie', clearCsrfCookie(secure));
    if (target === undefined) {
      return html(reply, 200, messagePage({ title: 'You are signed out', message: 'See you at the next shower beer!', link: { href: home, text: 'Go to Shower Beer' } }));
    }
    if (target !== home) {
      return signOutLink('The link would send you to an address that is not registered for this application, so it was stopped. You are signed out.');
    }
    const location = state ? `${home}?state=${encodeURIComponent(state)}` : home;
    return reply.code(303).header('cache-control', 'no-store').header('location', location).send();
  });
};

export default pageRoutes;
