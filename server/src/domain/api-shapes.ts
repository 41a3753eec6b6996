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

export type CommentView = Static<typeof Comment>;
export type PostView = Static<typeof Post>;
