import fastJson from 'fast-json-stringify';
import t, { type Test } from 'tap';
import { createPageWriter } from '../../src/posts/page-json.js';
import { formatCursor, NEWEST } from '../../src/kernel/paging.js';
import { createPostsRepository } from '../../src/posts/posts-repository.js';
import { authorHidden, commentView, mentionList, pictureUrl, type CommentRow, type PhotoRow, type PostPage, type PostRow, type PostView } from '../../src/kernel/views.js';
import { blurUrl, mediaUrls, mediumUrl } from '../../src/kernel/storage/media-keys.js';
import { Posts } from '../../src/kernel/route-schemas.js';
import { insertComment, insertPost } from '../api/factories.js';
import { freshDatabase } from '../helpers.js';

// Text that JSON must escape, or that is not ASCII, in every place user text goes.
const TRICKY = [
  'plain',
  'say "cheers" \\o/',
  'line one\nline two\ttab\r\u0001\u001f',
  '🍺🚿 zoë ünïcödé 日本語',
  'separators \u2028 \u2029 and </script><b>bold</b>',
  'x'.repeat(2200),
];

function setUp(t: Test) {
  const sqlite = freshDatabase(t, 'shower-beer-page-json-');
  const addUser = (username: string) =>
    (sqlite.prepare("INSERT INTO users (sub, username, created_at) VALUES (?, ?, 1) RETURNING id").get(`sub-${username}`, username) as { id: number }).id;
  const ann = addUser('ann');
  const ben = addUser('bén "the brewer" 🍺');
  const cat = addUser('cat');
  insertPost(sqlite, { userId: ann, isProfilePicture: true });
  const addComment = (postId: number, userId: number, content: string, createdAt: number) =>
    insertComment(sqlite, postId, userId, content, createdAt);
  let at = 1_700_000_000_000;
  for (const [i, caption] of TRICKY.entries()) {
    for (const [author, isAnonymous] of [[ann, false], [ann, true], [ben, false], [ben, true]] as const) {
      const post = insertPost(sqlite, { userId: author, caption, isAnonymous, createdAt: at++ });
      if (i % 2 === 0) sqlite.prepare('INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, 1)').run(post.id, cat);
      // The author comments on their own post (anonymous to others when the post is), others too.
      addComment(post.id, author, TRICKY[(i + 1) % TRICKY.length]!, at++);
      addComment(post.id, author === ann ? ben : ann, TRICKY[(i + 2) % TRICKY.length]!, at++);
      if (i % 3 === 0) addComment(post.id, cat, 'third', at++);
      // Every other post an album of 2 to 4 photos, their descriptions tricky too.
      if ((post.id + i) % 2 === 0) {
        const more = 1 + (post.id % 3);
        sqlite.prepare('UPDATE posts SET photo_count = ? WHERE id = ?').run(1 + more, post.id);
        for (let position = 1; position <= more; position++) {
          sqlite
            .prepare('INSERT INTO post_photos (post_id, position, media_key, width, height, medium_width, alt_text) VALUES (?, ?, ?, ?, ?, ?, ?)')
            .run(post.id, position, `album-${post.id}-${position}`, 800 + position, 1000, position % 2 === 0 ? 768 : 0, TRICKY[(i + position) % TRICKY.length]!);
        }
      }
    }
  }
  // Some posts marked sensitive, with tricky warnings (docs/api.md, "Content warnings"); cat always shows them.
  sqlite
    .prepare("UPDATE posts SET sensitive = 1, content_warning = ?, blur_key = 'blur-' || id WHERE id % 3 = 0 AND is_profile_picture = 0")
    .run(TRICKY[3]!.slice(0, 40));
  sqlite.prepare("UPDATE posts SET content_warning = '' WHERE id % 9 = 0").run();
  sqlite.prepare('UPDATE users SET show_sensitive = 1 WHERE id = ?').run(cat);
  return { sqlite, ann, ben, cat };
}

/**
 * The reference the page writer is held to: a post as the API shows it, as view objects (the
 * author of an anonymous post is only shown to the author), serialized by the schema below.
 */
function postView(row: PostRow, viewerId: number, comments: CommentRow[], album: PhotoRow[]): PostView {
  const isOwner = row.userId === viewerId;
  const hidden = authorHidden(row, viewerId);
  const { s3Url, thumbnailUrl } = mediaUrls(row.mediaKey);
  const [warning, blurKey] = row.sensitivity === null ? ['', null] : (JSON.parse(row.sensitivity.slice(1)) as [string, string]);
  const blurred = row.sensitivity?.startsWith('0') === true;
  // Someone else's sensitive post, for a viewer who does not always show them: the blurred image only.
  if (blurred) {
    return {
      ...postView({ ...row, sensitivity: null }, viewerId, comments, []),
      s3Url: blurUrl(blurKey!),
      thumbnailUrl: blurUrl(blurKey!),
      mediumUrl: null,
      mediumWidth: 0,
      altText: '',
      sensitive: { warning, blurred: true },
    };
  }
  return {
    postid: row.id,
    s3Url,
    thumbnailUrl,
    width: row.width,
    height: row.height,
    mediumUrl: mediumUrl(row.mediaKey, row.mediumWidth),
    mediumWidth: row.mediumWidth,
    caption: row.caption,
    altText: row.altText,
    isAnonymous: row.isAnonymous === 1,
    created_at: new Date(row.createdAt).toISOString(),
    editedAt: row.editedAt === null ? null : new Date(row.editedAt).toISOString(),
    username: hidden ? null : row.username,
    profilePictureUrl: hidden ? null : pictureUrl(row.pictureKey),
    isOwner,
    likeCount: row.likeCount,
    likedByUser: row.liked === 1,
    commentCount: row.commentCount,
    comments: comments.map((c) => commentView(c, row, viewerId)),
    cursor: formatCursor(row.createdAt, row.id),
    photos: album.length === 0 ? undefined : [row, ...album].map((f) => ({
      ...mediaUrls(f.mediaKey),
      width: f.width,
      height: f.height,
      mediumUrl: mediumUrl(f.mediaKey, f.mediumWidth),
      mediumWidth: f.mediumWidth,
      altText: f.altText,
    })),
    mentions: mentionList(row.mentions),
    sensitive: row.sensitivity === null ? undefined : { warning, blurred: false },
  };
}

const postViews = (page: PostPage, viewerId: number): PostView[] =>
  page.rows.map((r) => postView(r, viewerId, page.comments.get(r.id) ?? [], page.photos?.get(r.id) ?? []));

const reference = fastJson(Posts);

// The same values in the same order: JSON text as JSON.stringify would write it from what was parsed.
const canonical = (json: string) => JSON.stringify(JSON.parse(json));
const ASCII_ONLY = /^[^\u0080-\uffff]*$/;

t.test('the page writer gives what the Posts schema gives for postViews, in ASCII only', async (t) => {
  const { sqlite, ann, ben, cat } = setUp(t);
  const posts = createPostsRepository(sqlite);
  const write = createPageWriter();
  const small = createPageWriter(3, 5); // fragments dropped and made again all the time
  const check = (label: string) => {
    for (const viewer of [ann, ben, cat]) {
      const page = posts.discover({ id: viewer, blockCount: 0 }, NEWEST, 50);
      t.ok(page.rows.length > 20, 'a page with every kind of post');
      const expected = reference(postViews(page, viewer));
      const first = write(page, viewer);
      t.match(first, ASCII_ONLY, 'nothing past U+007F');
      t.equal(canonical(first), expected, `${label}: viewer ${viewer}`);
      t.equal(write(page, viewer), first, `${label}: viewer ${viewer}, the same from kept fragments`);
      t.equal(small(page, viewer), first, `${label}: viewer ${viewer}, the same with a small cache`);
    }
  };
  check('as created');
  for (const [viewer, blurred] of [[ann, true], [cat, false]] as const) {
    const page = JSON.parse(write(posts.discover({ id: viewer, blockCount: 0 }, NEWEST, 50), viewer)) as PostView[];
    const others = page.filter((p) => p.sensitive && !p.isOwner);
    t.ok(others.length > 0 && others.every((p) => p.sensitive!.blurred === blurred), `someone else's sensitive posts ${blurred ? 'blurred' : 'unblurred'} for viewer ${viewer}`);
    t.ok(page.filter((p) => p.sensitive && p.isOwner).every((p) => !p.sensitive!.blurred), 'the author\'s own never');
  }
  const albums = JSON.parse(write(posts.discover({ id: cat, blockCount: 0 }, NEWEST, 50), cat)) as PostView[];
  t.ok(albums.some((p) => (p.photos?.length ?? 0) > 2), 'albums are on the page');
  t.ok(albums.some((p) => p.photos === undefined), 'and posts of one photo, without a photos list');
  for (const p of albums) {
    const count = sqlite.prepare('SELECT photo_count FROM posts WHERE id = ?').pluck().get(p.postid) as number;
    if (count === 1) continue;
    t.equal(p.photos![0]!.s3Url, p.s3Url, 'the first photo is the post\'s own');
    t.equal(p.photos!.length, count);
  }

  // What a fragment was made from changes under it: the next page shows the change.
  const newest = posts.discover({ id: cat, blockCount: 0 }, NEWEST, 1).rows[0]!;
  sqlite.prepare('UPDATE posts SET caption = ? WHERE id = ?').run('edited "by hand"', newest.id);
  // Every other column a post's kept text is made from, each on a post of its own.
  const others = posts.discover({ id: cat, blockCount: 0 }, NEWEST, 7).rows.slice(1).map((r) => r.id);
  for (const [i, set] of ["media_key = 'moved'", 'width = 7', 'height = 9', 'is_anonymous = 1 - is_anonymous', 'created_at = created_at - 1', 'edited_at = 1700000999000'].entries()) {
    sqlite.prepare(`UPDATE posts SET ${set} WHERE id = ?`).run(others[i]);
  }
  // Marked and unmarked, its warning changed: the kept text follows.
  for (const [i, set] of ["sensitive = 1 - sensitive, blur_key = coalesce(blur_key, 'late-blur')", "content_warning = 'changed <b>warning</b>'"].entries()) {
    sqlite.prepare(`UPDATE posts SET ${set} WHERE id = ?`).run(others[i]);
  }
  sqlite.prepare("UPDATE comments SET content = 'edited comment' WHERE post_id = ?").run(newest.id);
  sqlite.prepare("UPDATE users SET username = 'ben2', profile_picture_key = 'new-picture' WHERE id = ?").run(ben);
  check('after edits');
  const after = JSON.parse(write(posts.discover({ id: cat, blockCount: 0 }, NEWEST, 1), cat));
  t.equal(after[0].caption, 'edited "by hand"');
  t.equal(after[0].editedAt, null, 'a change made by hand is no edit of its author');
  const editedOne = (JSON.parse(write(posts.discover({ id: cat, blockCount: 0 }, NEWEST, 7), cat)) as Array<{ postid: number; editedAt: string | null }>)
    .find((p) => p.postid === others[5]);
  t.equal(editedOne?.editedAt, new Date(1700000999000).toISOString(), 'an edited post says when');
  t.ok(after[0].comments.some((c: { content: string }) => c.content === 'edited comment'));
});

t.test('an anonymous post and its author\'s comments name nobody but to the author', async (t) => {
  const { sqlite, ann, ben, cat } = setUp(t);
  const posts = createPostsRepository(sqlite);
  const write = createPageWriter();
  const hers = new Set(
    (sqlite.prepare('SELECT id FROM posts WHERE user_id = ? AND is_anonymous = 1').all(ann) as Array<{ id: number }>).map((r) => r.id),
  );
  t.ok(hers.size > 0);
  const seenBy = (viewer: number) =>
    (JSON.parse(write(posts.discover({ id: viewer, blockCount: 0 }, NEWEST, 50), viewer)) as Array<{
      postid: number;
      username: string | null;
      profilePictureUrl: string | null;
      comments: Array<{ username: string | null; userid: number | null }>;
    }>).filter((p) => hers.has(p.postid));
  for (const viewer of [ben, cat]) {
    const seen = seenBy(viewer);
    t.equal(seen.length, hers.size);
    for (const p of seen) {
      t.equal(p.username, null, 'no name');
      t.equal(p.profilePictureUrl, null, 'no picture');
      t.notOk(JSON.stringify(p).includes('"ann"'), 'her name appears nowhere in it');
      t.notOk(p.comments.some((c) => c.userid === ann), 'her comments on it are anonymous too');
    }
  }
  for (const p of seenBy(ann)) {
    t.equal(p.username, 'ann', 'the author sees her name');
    t.ok(p.comments.some((c) => c.userid === ann && c.username === 'ann'), 'and her comments as hers');
  }
});
