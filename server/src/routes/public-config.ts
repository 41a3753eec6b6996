import type { FastifyPluginAsync } from 'fastify';
import { ALT_TEXT_MAX_LENGTH, CAPTION_MAX_LENGTH, COMMENT_MAX_LENGTH } from '../domain/limits.js';

/**
 * What the browser needs to know at run time (never baked in at build time),
 * so one web bundle works with the embedded provider and with Keycloak.
 */
const publicConfigRoute: FastifyPluginAsync = async (fastify) => {
  const { auth, web, uploads, publicUrl } = fastify.config;
  const body = {
    appUrl: publicUrl,
    auth: {
      provider: auth.provider,
      clientId: auth.clientId,
      authorizeUrl: auth.authorizeUrl,
      userInfoUrl: auth.userInfoUrl,
      logoutUrl: auth.logoutUrl,
      redirectUri: `${publicUrl}/app/account`,
      postLogoutRedirectUri: `${publicUrl}/`,
      scope: 'email openid profile',
    },
    api: { baseUrl: web.apiBaseUrl, secondBaseUrl: web.secondApiBaseUrl },
    limits: { maxUploadBytes: uploads.maxBytes, captionMaxLength: CAPTION_MAX_LENGTH, commentMaxLength: COMMENT_MAX_LENGTH, altTextMaxLength: ALT_TEXT_MAX_LENGTH },
  };
  fastify.get('/config.json', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return body;
  });
};

export default publicConfigRoute;
