import { Type, type TSchema, type Static } from 'typebox';
import { CURSOR_PATTERN } from '../domain/paging.js';

/** `type: [T, 'null']` rather than anyOf, so responses serialize without a validation pass. */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

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

export const Comment = Type.Object({
  comment_id: Type.Integer(),
  username: Nullable(Type.String()),
  content: Type.String(),
  created_at: Type.String(),
  userid: Nullable(Type.Integer()),
  isOwner: Type.Boolean(),
  cursor: Type.String(),
});

export const Post = Type.Object({
  postid: Type.Integer(),
  s3Url: Type.String(),
  thumbnailUrl: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  caption: Type.String(),
  isAnonymous: Type.Boolean(),
  created_at: Type.String(),
  username: Nullable(Type.String()),
  profilePictureUrl: Nullable(Type.String()),
  isOwner: Type.Boolean(),
  likeCount: Type.Integer(),
  likedByUser: Type.Boolean(),
  commentCount: Type.Integer(),
  comments: Type.Array(Comment),
  cursor: Type.String(),
});

export const Posts = Type.Array(Post);

export const LikeState = Type.Object({ likeCount: Type.Integer(), likedByUser: Type.Boolean() });
export const FollowState = Type.Object({ following: Type.Boolean(), followerCount: Type.Integer() });
export const ProfileMatch = Type.Object({ username: Type.String(), profilePictureUrl: Nullable(Type.String()) });
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 200 }) });

/** Error answers every route may give. */
export const errors = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
} as const;
