import { Type } from 'typebox';
import { Comment, LikeState, Nullable, OwnProfile, Post, ProfileMatch, UserProfile } from '../domain/api-shapes.js';
import { CURSOR_PATTERN } from '../domain/paging.js';

export { Comment, LikeState, Nullable, OwnProfile, Post, ProfileMatch, UserProfile };

export const ErrorBody = Type.Object({ error: Type.String(), message: Type.String() });

/** A post or comment id: a number or a numeric string (JSON bodies carry either). */
export const Id = Type.Union([Type.String({ pattern: '^[1-9][0-9]{0,14}$' }), Type.Integer({ minimum: 1 })]);
export const IdParam = Type.String({ pattern: '^[1-9][0-9]{0,14}$' });

export const PageQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 50, default: 20 }),
    cursor: Type.Optional(Type.String({ pattern: CURSOR_PATTERN })),
  },
  { additionalProperties: true },
);

export const Posts = Type.Array(Post);

export const FollowState = Type.Object({ following: Type.Boolean(), followerCount: Type.Integer() });
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 200 }) });

/** Error answers every route may give. */
export const errors = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
} as const;
