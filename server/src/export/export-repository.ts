import type Database from 'better-sqlite3';

/**
 * Rows read per statement. Each page is its own short statement on the shared
 * connection: an open iterator (stmt.iterate()) would keep the connection busy
 * between the awaits of a slow download, and every other request would fail on it.
 */
export const EXPORT_PAGE = 250;

export interface ExportProfileRow {
  id: number;
  username: string;
  email: string | null;
  createdAt: number;
  pictureKey: string | null;
  suspendedAt: number | null;
  suspensionReason: string | null;
  isPrivate: number;
}

export interface ExportPostRow {
  id: number;
  createdAt: number;
  caption: string;
  /** '' when none. */
  altText: string;
  isAnonymous: number;
  mediaKey: string;
  width: number;
  height: number;
  likeCount: number;
  commentCount: number;
  /** Above 1: an album, its other photos read with albumPhotos. */
  photoCount: number;
  /** The author's last edit; null when never edited (then it has no earlier versions). */
  editedAt: number | null;
}

/** What a post said before one of its edits (post_versions, migrations 0020 and 0023). */
export interface ExportVersionRow {
  caption: string;
  altText: string;
  /** JSON array of an album's other photos' descriptions ('[]' for a post of one photo). */
  photoAlts: string;
  writtenAt: number;
}

/** An album's photo after the first (post_photos). */
export interface ExportAlbumPhotoRow {
  position: number;
  mediaKey: string;
  width: number;
  height: number;
  altText: string;
}

/** A comment or like with what the anonymity rule needs to know about its post (views.ts, authorHidden). */
interface OnPost {
  postId: number;
  postUserId: number;
  postIsAnonymous: number;
  postAuthor: string;
  createdAt: number;
}

export interface ExportCommentRow extends OnPost {
  id: number;
  content: string;
}

export type ExportLikeRow = OnPost;

export interface ExportFollowRow {
  /** The other person's id: the keyset of the people followed, with createdAt of the followers. */
  userId: number;
  username: string;
  createdAt: number;
}

/** Where a page of followers starts: after this follow, in the order they came. */
export interface FollowerKey {
  createdAt: number;
  userId: number;
}

/**
 * What the data export reads (export/export-service.ts), in keyset pages of
 * EXPORT_PAGE rows, each by an index that holds the person's rows in key order
 * (comments_user_idx, likes_user_post_idx, the follows primary key and
 * follows_followee_time_idx), except posts: posts_user_feed_idx finds the person's
 * posts and SQLite sorts them by id per page, which for 1,000 posts is
 * ~1,000 index entries a page.
 */
export function createExportRepository(sqlite: Database.Database) {
  const profile = sqlite.prepare<[number], ExportProfileRow>(`
    SELECT id, username, email, created_at AS createdAt, profile_picture_key AS pictureKey,
      suspended_at AS suspendedAt, suspension_reason AS suspensionReason, is_private AS isPrivate
    FROM users WHERE id = ? AND deleted_at IS NULL`);

  // The last post (or picture) there is when the export starts: both passes (data.json,
  // then the photos) stop there, so a post made meanwhile is in neither.
  const lastPostId = sqlite
    .prepare<[number], number>('SELECT coalesce(max(id), 0) FROM posts WHERE user_id = ?')
    .pluck();

  // Hidden posts (the author suspended) are theirs all the same.
  const posts = sqlite.prepare<{ me: number; pictures: 0 | 1; after: number; upTo: number }, ExportPostRow>(`
    SELECT id, created_at AS createdAt, caption, alt_text AS altText, is_anonymous AS isAnonymous, media_key AS mediaKey,
      width, height, like_count AS likeCount, comment_count AS commentCount, photo_count AS photoCount,
      edited_at AS editedAt
    FROM posts INDEXED BY posts_user_feed_idx
    WHERE user_id = @me AND is_profile_picture = @pictures AND id > @after AND id <= @upTo
    ORDER BY id
    LIMIT ${EXPORT_PAGE}`);

  const albumPhotos = sqlite.prepare<[number], ExportAlbumPhotoRow>(`
    SELECT position, media_key AS mediaKey, width, height, alt_text AS altText
    FROM post_photos WHERE post_id = ? ORDER BY position`);

  // Oldest first, by the index that holds a post's versions in order (post_versions_post_idx).
  const versions = sqlite.prepare<[number], ExportVersionRow>(`
    SELECT caption, alt_text AS altText, photo_alts AS photoAlts, written_at AS writtenAt
    FROM post_versions WHERE post_id = ? ORDER BY id`);

  const comments = sqlite.prepare<{ me: number; after: number }, ExportCommentRow>(`
    SELECT c.id, c.post_id AS postId, p.user_id AS postUserId, p.is_anonymous AS postIsAnonymous,
      u.username AS postAuthor, c.created_at AS createdAt, c.content
    FROM comments c INDEXED BY comments_user_idx
    JOIN posts p ON p.id = c.post_id
    JOIN users u ON u.id = p.user_id
    WHERE c.user_id = @me AND c.id > @after
    ORDER BY c.id
    LIMIT ${EXPORT_PAGE}`);

  // By post, oldest first: the index that keeps one like per person and post holds them in
  // that order (a like writes no index by time; migration 0015).
  const likes = sqlite.prepare<{ me: number; after: number }, ExportLikeRow>(`
    SELECT l.post_id AS postId, p.user_id AS postUserId, p.is_anonymous AS postIsAnonymous,
      u.username AS postAuthor, l.created_at AS createdAt
    FROM likes l INDEXED BY likes_user_post_idx
    JOIN posts p ON p.id = l.post_id
    JOIN users u ON u.id = p.user_id
    WHERE l.user_id = @me AND l.post_id > @after
    ORDER BY l.post_id
    LIMIT ${EXPORT_PAGE}`);

  const following = sqlite.prepare<{ me: number; after: number }, ExportFollowRow>(`
    SELECT f.followee_id AS userId, u.username, f.created_at AS createdAt
    FROM follows f JOIN users u ON u.id = f.followee_id
    WHERE f.follower_id = @me AND f.followee_id > @after
    ORDER BY f.followee_id
    LIMIT ${EXPORT_PAGE}`);

  // Since when, oldest first: the index by followee and time holds them in that order.
  const followers = sqlite.prepare<{ me: number; at: number; after: number }, ExportFollowRow>(`
    SELECT f.follower_id AS userId, u.username, f.created_at AS createdAt
    FROM follows f INDEXED BY follows_followee_time_idx JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = @me AND (f.created_at > @at OR (f.created_at = @at AND f.follower_id > @after))
    ORDER BY f.created_at, f.follower_id
    LIMIT ${EXPORT_PAGE}`);

  // Waiting follow requests either way, by the other person's id (follow_requests_requester_idx,
  // and the primary key by target).
  const requestsSent = sqlite.prepare<{ me: number; after: number }, ExportFollowRow>(`
    SELECT r.target_id AS userId, u.username, r.created_at AS createdAt
    FROM follow_requests r JOIN users u ON u.id = r.target_id
    WHERE r.requester_id = @me AND r.target_id > @after
    ORDER BY r.target_id
    LIMIT ${EXPORT_PAGE}`);
  const requestsReceived = sqlite.prepare<{ me: number; after: number }, ExportFollowRow>(`
    SELECT r.requester_id AS userId, u.username, r.created_at AS createdAt
    FROM follow_requests r JOIN users u ON u.id = r.requester_id
    WHERE r.target_id = @me AND r.requester_id > @after
    ORDER BY r.requester_id
    LIMIT ${EXPORT_PAGE}`);

  return {
    /** The live account, or undefined when it does not exist or was removed. */
    profile: (userId: number) => profile.get(userId),
    lastPostId: (userId: number) => lastPostId.get(userId) ?? 0,
    /** Posts (`pictures` false) or profile pictures (true) with id in (after, upTo], by id. */
    posts: (userId: number, pictures: boolean, after: number, upTo: number) =>
      posts.all({ me: userId, pictures: pictures ? 1 : 0, after, upTo }),
    /** An album's photos after the first, in order (none for a single photo's post). */
    albumPhotos: (post: ExportPostRow) => (post.photoCount > 1 ? albumPhotos.all(post.id) : []),
    /** What a post said before each edit, oldest first (none for a post never edited). */
    versions: (post: ExportPostRow) => (post.editedAt === null ? [] : versions.all(post.id)),
    comments: (userId: number, after: number) => comments.all({ me: userId, after }),
    likes: (userId: number, after: number) => likes.all({ me: userId, after }),
    following: (userId: number, after: number) => following.all({ me: userId, after }),
    followers: (userId: number, after: FollowerKey) => followers.all({ me: userId, at: after.createdAt, after: after.userId }),
    requestsSent: (userId: number, after: number) => requestsSent.all({ me: userId, after }),
    requestsReceived: (userId: number, after: number) => requestsReceived.all({ me: userId, after }),
  };
}

export type ExportRepository = ReturnType<typeof createExportRepository>;

/**
 * Every row of a keyset-paged read, one page at a time: `read(after)` gives the
 * page after key `after` (`first`, then the last row's), `keyOf` the key of a row.
 * The caller may await between pages; nothing stays open on the connection meanwhile.
 */
export function* keysetPages<R, K>(read: (after: K) => R[], keyOf: (row: R) => K, first: K): Generator<R[]> {
  let after = first;
  for (;;) {
    const page = read(after);
    if (page.length > 0) yield page;
    if (page.length < EXPORT_PAGE) return;
    after = keyOf(page[page.length - 1]!);
  }
}
