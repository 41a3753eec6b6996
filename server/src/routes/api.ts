import type { FastifyPluginAsync } from 'fastify';

// Placeholder: the social API (feeds, profiles, likes, comments, follows, search).
const apiRoutes: FastifyPluginAsync = async () => {};
export default apiRoutes;
