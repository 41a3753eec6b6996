import fp from 'fastify-plugin';
import { createAccountsService, type AccountsService } from './accounts-service.js';
import discoveryRoutes from './discovery-routes.js';
import pageRoutes from './page-routes.js';

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
    await fastify.register(discoveryRoutes, { accounts });
    await fastify.register(pageRoutes, { accounts });
  },
  { name: 'idp', dependencies: ['db', 'auth'] },
);
