import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../kernel/config.js';
import type { InstanceSettings } from '../registration/instance-repository.js';
import { ALBUM_MAX_PHOTOS, ALT_TEXT_MAX_LENGTH, CAPTION_MAX_LENGTH, COMMENT_MAX_LENGTH, CONTENT_WARNING_MAX_LENGTH } from '../kernel/limits.js';

/**
 * What the browser needs to know at run time (never baked in at build time),
 * so one web bundle works with the embedded provider and with Keycloak. Served
 * at /config.json and inlined into index.html (web/plugin.ts), so the app's
 * first render does not wait for a second round trip.
 */
export function publicConfig({ auth, web, uploads, publicUrl }: Config, instance?: InstanceSettings) {
  return {
    // The server's name, description, rules and registration mode (GET /api/instance), for the landing page's first render.
    ...(instance ? { instance } : {}),
    appUrl: publicUrl,
    auth: {
      provider: auth.provider,
      clientId: auth.clientId,
      authorizeUrl: auth.authorizeUrl,
      userInfoUrl: auth.userInfoUrl,
      logoutUrl: auth.logoutUrl,
      accountUrl: auth.accountUrl,
      redirectUri: `${publicUrl}/app/account`,
      postLogoutRedirectUri: `${publicUrl}/`,
      scope: 'email openid profile',
    },
    api: { baseUrl: web.apiBaseUrl, secondBaseUrl: web.secondApiBaseUrl },
    limits: { maxUploadBytes: uploads.maxBytes, captionMaxLength: CAPTION_MAX_LENGTH, commentMaxLength: COMMENT_MAX_LENGTH, altTextMaxLength: ALT_TEXT_MAX_LENGTH, albumMaxPhotos: ALBUM_MAX_PHOTOS, contentWarningMaxLength: CONTENT_WARNING_MAX_LENGTH },
  };
}

const publicConfigRoute: FastifyPluginAsync = async (fastify) => {
  fastify.get('/config.json', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return publicConfig(fastify.config, fastify.instanceSettings.get());
  });
};

export default publicConfigRoute;
