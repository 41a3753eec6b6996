import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { isOperator } from '../kernel/auth/operators.js';
import { forbidden } from '../kernel/errors.js';
import { createBlocksRepository, type BlocksRepository } from './blocks-repository.js';
import { createModerationRepository, type ModerationRepository } from './moderation-repository.js';
import { createOperatorsRepository, type OperatorsRepository } from './operators-repository.js';
import { createServerMutesRepository, type ServerMutesRepository } from './server-mutes-repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Operator grants of the embedded provider's accounts (kernel/auth/operators.ts decides who is one). */
    operators: OperatorsRepository;
    /** Whether the verified token's holder is an operator: the one place that asks. */
    isOperator(request: FastifyRequest): boolean;
    /**
     * The one operator check of every operator route (api.ts's /api/admin scope, the reset link's route):
     * an onRequest hook, after `authenticate`, so anyone else gets 403 before the body is read or
     * validated, whatever they send, and learns nothing of the operator's API.
     */
    requireOperator(request: FastifyRequest): Promise<void>;
    moderation: ModerationRepository;
    blocks: BlocksRepository;
    serverMutes: ServerMutesRepository;
  }
}

/** Reports, blocks, operators, suspension and the moderation log. */
export default fp(
  async (fastify) => {
    const { config, shared, posts, comments, follows, suspension } = fastify;
    const { sqlite } = fastify.database;
    const operators = createOperatorsRepository(sqlite, config.auth);
    const asOperator = (request: FastifyRequest) => isOperator(config.auth, request.tokenClaims, () => operators.isOperator(request.user.id));
    fastify.decorate('operators', operators);
    fastify.decorate('isOperator', asOperator);
    fastify.decorate('requireOperator', async (request: FastifyRequest) => {
      if (!asOperator(request)) throw forbidden('Only operators can do this.');
    });
    fastify.decorate('moderation', createModerationRepository(sqlite, shared, suspension, posts, comments));
    fastify.decorate('blocks', createBlocksRepository(sqlite, shared, posts, follows));
    // Our own host is refused: people here are blocked one by one, never muted as a server.
    fastify.decorate('serverMutes', createServerMutesRepository(sqlite, shared, new URL(config.publicUrl).host));
  },
  { name: 'moderation', dependencies: ['kernel', 'people', 'posts', 'social'] },
);
