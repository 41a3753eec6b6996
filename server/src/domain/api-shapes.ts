// The shapes of a post and a comment as every client sees them: the one place they are
// spelled out. The routes validate and serialize with these schemas, the views
// (views.ts) and the feed page writer (feeds/page-json.ts) are typed from them, and
// the web app imports their types (web/src/lib/api.ts), so renaming a field here fails
// the typecheck on both sides. This file imports nothing of ours, so both can use it.
import { Type, type Static, type TSchema } from 'typebox';

/** `type: [T, 'null']` rather than anyOf, so responses serialize without a validation pass. */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

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

/** GET /api/user-posts: the signed-in person's own profile and a page of their posts. */
export const OwnProfile = Type.Object({
  username: Type.String(),
  email: Nullable(Type.String()),
  profilePictureUrl: Nullable(Type.String()),
  postCount: Type.Integer(),
  totalLikes: Type.Integer(),
  totalComments: Type.Integer(),
  followerCount: Type.Integer(),
  followingCount: Type.Integer(),
  posts: Type.Array(Post),
});

/** GET /api/view-user-posts: someone else's profile and a page of their public posts. */
export const UserProfile = Type.Object({
  username: Type.String(),
  profilePictureUrl: Nullable(Type.String()),
  postCount: Type.Integer(),
  followerCount: Type.Integer(),
  followingCount: Type.Integer(),
  isFollowing: Type.Boolean(),
  posts: Type.Array(Post),
});

export const LikeState = Type.Object({ likeCount: Type.Integer(), likedByUser: Type.Boolean() });
export const ProfileMatch = Type.Object({ username: Type.String(), profilePictureUrl: Nullable(Type.String()) });

export type CommentView = Static<typeof Comment>;
export type PostView = Static<typeof Post>;
export type OwnProfileView = Static<typeof OwnProfile>;
export type UserProfileView = Static<typeof UserProfile>;
export type LikeStateView = Static<typeof LikeState>;
export type ProfileMatchView = Static<typeof ProfileMatch>;
