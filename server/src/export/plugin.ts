import fp from 'fastify-plugin';
import { createExportService, type ExportService } from './export-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** "Download my data": a person's rows and photos as a streamed zip. */
    exporter: ExportService;
  }
}

/** The data export (GET /api/export): one snapshot of everything of a person's, with their photos. */
export default fp(
  async (fastify) => {
    fastify.decorate('exporter', createExportService({ sqlite: fastify.database.sqlite, storage: fastify.storage, log: fastify.log }));
  },
  { name: 'export', dependencies: ['kernel'] },
);
