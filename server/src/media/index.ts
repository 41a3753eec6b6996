import fp from 'fastify-plugin';
import type { Storage } from '../storage/storage.js';

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage;
  }
}

// Placeholder: storage drivers, presign/upload, image pipeline, create-post and
// delete-post are built in the media module.
export default fp(async () => {}, { name: 'media', dependencies: ['db', 'auth'] });
