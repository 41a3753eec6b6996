import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { client, insertComment, insertPost } from './factories.js';

/**
 * Issue 45, part 3: every read and write by a post's (or a comment's) id answers a post the caller
 * cannot see exactly as an id that never existed, status and body, so no answer tells it is there.
 * The spec's own calls (GET /api/like?postId=, GET /api/comment?postId=) keep their shapes for
 * posts the caller sees; for the others they answer the same 404 as the other routes.
 */

type Api = ReturnType<typeof client>;
interface Target {
  post: number;
  comment: number;
}

const ROUTES: Array<[string, (api: Api, x: Target) => ReturnType<Api>]> = [
  ['edit (PATCH /api/post)', (api, x) => api('PATCH', `/api/post?postId=${x.post}`, { caption: 'mine now' })],
  ['delete (DELETE /api/post)', (api, x) => api('DELETE', `/api/post?postId=${x.post}`)],
  ['likes (GET /api/like)', (api, x) => api('GET', `/api/like?postId=${x.post}`)],
  ['like (POST /api/like)', (api, x) => api('POST', '/api/like', { postId: x.post })],
  ['unlike (DELETE /api/like)', (api, x) => api('DELETE', `/api/like?postId=${x.post}`)],
  ['comments (GET /api/comment)', (api, x) => api('GET', `/api/comment?postId=${x.post}`)],
  ['comment (POST /api/comment)', (api, x) => api('POST', '/api/comment', { postId: x.post, comment: 'hello' })],
  ['delete a comment (DELETE /api/comment)', (api, x) => api('DELETE', `/api/comment?commentId=${x.comment}`)],
  ['report the post', (api, x) => api('POST', '/api/reports', { kind: 'post', id: x.post, reason: 'spam' })],
  ['report its comment', (api, x) => api('POST', '/api/reports', { kind: 'comment', id: x.comment, reason: 'spam' })],
  ['edit history (GET /api/post-versions)', (api, x) => api('GET', `/api/post-versions?postId=${x.post}`)],
  // Last: blocking the visible post's author hides it from the caller from then on.
  ['block the author', (api, x) => api('POST', `/api/posts/${x.post}/block-author`)],
];

t.test('a post the caller cannot see answers every route by id exactly as a made-up id', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'boss' });
  const db = app.database.sqlite;
  const stranger = await createUser('stranger');
  const boss = await createUser('boss');
  const asStranger = client(app, stranger.token);
  const as = (u: { token: string }) => client(app, u.token);

  const unseen = new Map<string, Target>();
  const postOf = async (name: string, setUp: (author: { token: string; username: string }) => Promise<void>) => {
    const author = await createUser(name);
    const post = insertPost(db, { userId: author.id, caption: `by ${name}` }).id;
    const comment = insertComment(db, post, author.id, 'first!');
    await setUp(author);
    unseen.set(name, { post, comment });
  };
  await postOf('private', async (a) => {
    t.equal((await as(a)('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  });
  await postOf('blocker', async (a) => {
    t.equal((await as(a)('POST', '/api/account/stranger/block')).status, 200);
  });
  await postOf('suspended', async (a) => {
    t.equal((await as(boss)('POST', `/api/admin/users/${a.username}/suspend`, { reason: 'Spam' })).status, 200);
  });
  // A public account's post: the stranger sees it, so these routes do not answer 404 for it.
  const author = await createUser('public');
  const seen = insertPost(db, { userId: author.id, caption: 'for all' }).id;
  const seenComment = insertComment(db, seen, author.id, 'hi');

  const top = db.prepare<[], number>('SELECT max(id) FROM posts').pluck().get()! + db.prepare<[], number>('SELECT max(id) FROM comments').pluck().get()!;
  const madeUp: Target = { post: top + 1000, comment: top + 1000 };
  const snapshot = () => JSON.stringify([
    db.prepare('SELECT id, caption, like_count, comment_count FROM posts ORDER BY id').all(),
    db.prepare('SELECT id FROM comments ORDER BY id').all(),
    db.prepare('SELECT count(*) FROM reports').pluck().get(),
    db.prepare('SELECT count(*) FROM blocks').pluck().get(),
  ]);
  const before = snapshot();

  for (const [route, call] of ROUTES) {
    const none = await call(asStranger, madeUp);
    t.equal(none.status, 404, `${route}: a made-up id is not found`);
    for (const [why, target] of unseen) {
      const res = await call(asStranger, target);
      t.same({ status: res.status, body: res.body }, { status: none.status, body: none.body }, `${route}: ${why}'s post answers as a made-up id`);
    }
    const visible = await call(asStranger, { post: seen, comment: seenComment });
    t.not(visible.status, 404, `${route}: a post the caller sees is found`);
  }
  // Only the visible post's answers above may have changed anything; the unseen ones are as they were.
  const after = JSON.parse(snapshot()) as [Array<{ id: number }>, unknown, unknown, unknown];
  const beforeRows = JSON.parse(before) as [Array<{ id: number }>, unknown, unknown, unknown];
  const unseenIds = new Set([...unseen.values()].map((x) => x.post));
  t.same(after[0].filter((p) => unseenIds.has(p.id)), beforeRows[0].filter((p) => unseenIds.has(p.id)), 'the unseen posts are untouched');
});

t.test('the author still edits and deletes their own post; someone who sees it gets 403', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const owner = await createUser('owner');
  const other = await createUser('other');
  const post = insertPost(db, { userId: owner.id, caption: 'mine' }).id;
  const comment = insertComment(db, post, owner.id, 'mine too');
  const asOther = client(app, other.token);
  t.match(await asOther('PATCH', `/api/post?postId=${post}`, { caption: 'x' }), { status: 403, json: { error: 'forbidden' } });
  t.match(await asOther('DELETE', `/api/post?postId=${post}`), { status: 403, json: { error: 'forbidden' } });
  t.match(await asOther('DELETE', `/api/comment?commentId=${comment}`), { status: 403, json: { error: 'forbidden' } });
  const asOwner = client(app, owner.token);
  t.equal((await asOwner('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  t.match(await asOwner('PATCH', `/api/post?postId=${post}`, { caption: 'still mine' }), { status: 200, json: { caption: 'still mine' } });
  t.match(await asOwner('DELETE', `/api/comment?commentId=${comment}`), { status: 200 });
  t.match(await asOwner('DELETE', `/api/post?postId=${post}`), { status: 200, json: { deleted: true } });
});

t.test('someone who blocked the caller by name answers follow and unfollow as an unknown name', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const blocker = await createUser('blocker');
  const blocked = await createUser('blocked');
  t.equal((await client(app, blocker.token)('POST', '/api/account/blocked/block')).status, 200);
  const asBlocked = client(app, blocked.token);
  for (const method of ['POST', 'DELETE'] as const) {
    const none = await asBlocked(method, '/api/account/nobody-here/follow');
    const hidden = await asBlocked(method, '/api/account/blocker/follow');
    t.equal(none.status, 404);
    t.same({ status: hidden.status, body: hidden.body.replace('blocker', 'nobody-here') }, { status: none.status, body: none.body }, `${method} follow`);
  }
});
