import { Type } from 'typebox';
import { Comment, IdParam, LikeState, Nullable, OwnProfile, Post, ProfileMatch, UserProfile } from '../contract/api-shapes.js';
import { CURSOR_PATTERN } from './paging.js';
import { ErrorBody, FollowState, Posts } from '../contract/answers.js';

export { Comment, ErrorBody, FollowState, IdParam, LikeState, Nullable, OwnProfile, Post, Posts, ProfileMatch, UserProfile };

/** A post or comment id: a number or a numeric string (JSON bodies carry either). */
export const Id = Type.Union([Type.String({ pattern: '^[1-9][0-9]{0,14}$' }), Type.Integer({ minimum: 1 })]);

export const PageQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 50, default: 20 }),
    cursor: Type.Optional(Type.String({ pattern: CURSOR_PATTERN })),
  },
  { additionalProperties: true },
);

export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * Error answers every route under /api may give, all `{ error, message }` as
 * errors.ts's errorHandler sends them (so serializing through ErrorBody drops
 * nothing), declared so the OpenAPI document (kernel/openapi.ts) lists them:
 * 400 a request its schema or the route refuses; 401 no valid token; 403 a
 * suspended account (people/auth-plugin.ts; not on the few routes marked
 * allowSuspended) or an action that is not the caller's; 404 nothing there;
 * '4xx' the framework's other refusals (413 a body past bodyLimit, 415 a body
 * that is not JSON); '5xx' our own failure, logged, answered without details.
 */
export const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  '4xx': ErrorBody,
  '5xx': ErrorBody,
} as const;

/** Writes (POST, PUT, DELETE) also count against the caller's write budget: 429 with Retry-After (kernel/security.ts). */
export const writeErrors = { ...errors, 429: ErrorBody } as const;
