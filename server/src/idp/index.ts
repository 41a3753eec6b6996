import fp from 'fastify-plugin';

// Placeholder: the embedded OAuth 2.0 implicit-flow provider.
export default fp(async () => {}, { name: 'idp', dependencies: ['db', 'auth'] });
