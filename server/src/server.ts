import Fastify from 'fastify';
import app from './app.js';
import { discoverAuthEndpoints } from './kernel/auth/discovery.js';
import { ConfigError, loadConfig } from './kernel/config.js';
import { NewerDatabaseError } from './kernel/db/client.js';
import { fastifyOptions } from './fastify-options.js';

async function main() {
  let config;
  try {
    // With AUTH_PROVIDER=oidc, endpoints the env does not set come from the provider's discovery document.
    config = await discoverAuthEndpoints(loadConfig());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const fastify = Fastify(fastifyOptions(config));
  await fastify.register(app, { config });

  let closing = false;
  const close = (signal: string) => {
    if (closing) return;
    closing = true;
    fastify.log.info({ signal }, 'closing: draining in-flight requests');
    // close() stops accepting, waits for in-flight requests, then runs onClose hooks (database last).
    const timer = setTimeout(() => {
      fastify.log.error('forced exit after 20 s');
      process.exit(1);
    }, 20_000);
    timer.unref();
    // close() ends idle keep-alive sockets once; sockets busy at that moment go
    // idle after their response and would hold the close open, so keep reaping.
    const reaper = setInterval(() => fastify.server.closeIdleConnections(), 100);
    reaper.unref();
    fastify.close().then(
      () => process.exit(0),
      (err) => {
        fastify.log.error({ err }, 'error while closing');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => close('SIGTERM'));
  process.on('SIGINT', () => close('SIGINT'));

  await fastify.listen({ port: config.port, host: config.host });
  fastify.log.info(`Shower Beer is up at ${config.publicUrl} (identity: ${config.auth.provider}, storage: ${config.storage.driver})`);
}

main().catch((err) => {
  // A database from a newer release: the message says what to run instead, no stack needed.
  if (err instanceof NewerDatabaseError) {
    console.error(`Refusing to start: ${err.message}`);
    process.exit(1);
  }
  console.error(err);
  process.exit(1);
});
