import fp from 'fastify-plugin';
import { createAccountsService, type AccountsService } from './accounts-service.js';
import discoveryRoutes from './discovery-routes.js';
import { createMailer, type Mailer } from './mailer.js';
import pageRoutes from './page-routes.js';
import { createPasswordResets, type PasswordResets } from './password-resets.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The embedded provider's accounts, reset links and mail; present only with
     * AUTH_PROVIDER=embedded (the account and operator routes check the provider first).
     */
    idp: {
      accounts: AccountsService;
      resets: PasswordResets;
      /** null without SMTP_URL. Replaceable in tests (a fake that keeps the messages). */
      mailer: Mailer | null;
    };
  }
}

export interface IdpOptions {
  /** Hand in a service (e.g. with a test clock); by default one over the app's database. */
  accounts?: AccountsService;
}

/**
 * The embedded identity provider: a small OAuth 2.0 implicit-flow provider
 * (sign-in and sign-up pages, userInfo, OpenID discovery, JWKS), registered
 * when AUTH_PROVIDER=embedded.
 */
export default fp<IdpOptions>(
  async (fastify, opts) => {
    const accounts = opts.accounts ?? createAccountsService(fastify.database.sqlite, { throttleOptions: fastify.config.login });
    fastify.decorate('idp', { accounts, resets: createPasswordResets(fastify.database.sqlite, accounts), mailer: createMailer(fastify.config) });
    await fastify.register(discoveryRoutes, { accounts });
    await fastify.register(pageRoutes, { accounts });
  },
  { name: 'idp', dependencies: ['db', 'auth'] },
);
