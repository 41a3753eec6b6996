import fp from 'fastify-plugin';
import { createInstanceRepository, type InstanceRepository } from './instance-repository.js';
import { createInvitesRepository, type InvitesRepository } from './invites-repository.js';
import { createRegistrationService, type RegistrationService } from './registration-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's own settings: name, description, rules, registration mode (instance-repository.ts). */
    instanceSettings: InstanceRepository;
    invites: InvitesRepository;
    /** Who may join, asked when a person's users row is first made (registration-service.ts). */
    registration: RegistrationService;
  }
}

/**
 * Who may join: the instance's settings, invite links and the rule that admits a first sign-in.
 * The accounts waiting for an operator are people's rows (people/join-requests-repository.ts).
 */
export default fp(
  async (fastify) => {
    const { sqlite } = fastify.database;
    const instanceSettings = createInstanceRepository(sqlite, fastify.config.registrationMode);
    const invites = createInvitesRepository(sqlite);
    fastify.decorate('instanceSettings', instanceSettings);
    fastify.decorate('invites', invites);
    fastify.decorate('registration', createRegistrationService(instanceSettings, invites));
  },
  { name: 'registration', dependencies: ['kernel'] },
);
