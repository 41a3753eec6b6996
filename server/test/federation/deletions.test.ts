import t from 'tap';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { eventually } from './peer.js';
import { followAcross, twoServers } from './two-servers.js';

/** A failed delivery is retried after 1-2 s, then 2-4 s (delivery-failures.ts): seconds, not minutes. */
const ENV = { FEDERATION_RETRY_FIRST_DELAY_MS: '1000' };

/**
 * Issue 50, item 6: a deletion here reaches a server that was down when it was made, on a retry
 * (B stopped, the post or the account removed on A, B started again on the same data and port),
 * and B then holds nothing of it: not in a feed, a notification or a search, and no photo in its
 * storage. One pair of servers, B restarted for each case.
 */
t.test('deletions reach a server that was down, on their retry, and leave no trace there', async (t) => {
  const { a, b: first } = await twoServers(t, ENV);
  let b = first;
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const carol = await b.createUser('carol');
  const asAlice = client(a.app, alice.token);
  const aliceThere = `alice@${a.host}`;
  // They follow each other.
  await followAcross(b, bob.token, a, alice);
  await followAcross(a, alice.token, b, bob);
  await eventually('both follows are accepted', async () =>
    (await asAlice('GET', '/api/account/alice/followers')).json.length === 1 &&
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(`bob@${b.host}`)}`)).json.isFollowing === true);

  /** B stopped: its port refuses connections, its data stays where it is. */
  const stopB = () => b.app.close();
  /** B started again on the same data and port; tokens signed anew (its signing key is its own). */
  const startB = async () => {
    const again = await buildTestApp(t, {
      ...ENV,
      FEDERATION: 'on',
      PUBLIC_URL: first.origin,
      FEDERATION_ALLOWED_PRIVATE_HOSTS: `${a.host},${first.host}`,
      DATA_DIR: first.config.dataDir,
    });
    await again.app.listen({ port: Number(new URL(first.origin).port), host: '127.0.0.1' });
    b = { ...again, origin: first.origin, host: first.host };
  };
  const as = async (who: { username: string; sub: string }) => client(b.app, await b.tokenFor(who));
  /** What B holds of a post: its row, its photos' objects in storage, and the rows that point at it. */
  const traces = async (postId: number) => {
    const sqlite = b.app.database.sqlite;
    const keys = sqlite
      .prepare('SELECT media_key FROM posts WHERE id = ? UNION SELECT media_key FROM post_photos WHERE post_id = ?')
      .pluck()
      .all(postId, postId) as string[];
    let objects = 0;
    for (const key of keys) for (const r of ['display', 'medium', 'thumb']) if (await b.app.storage.stat(`media/${key}/${r}.webp`)) objects++;
    return {
      posts: sqlite.prepare('SELECT count(*) FROM posts WHERE id = ?').pluck().get(postId) as number,
      objects,
      comments: sqlite.prepare('SELECT count(*) FROM comments WHERE post_id = ?').pluck().get(postId) as number,
      mentions: sqlite.prepare('SELECT count(*) FROM mentions m JOIN comments c ON c.id = m.comment_id WHERE c.post_id = ?').pluck().get(postId) as number,
      remoteMedia: sqlite.prepare('SELECT count(*) FROM remote_media WHERE post_id = ?').pluck().get(postId) as number,
    };
  };
  /** A's recorded failures of a Delete to B (delivery-failures.ts): the delivery did fail while B was down. */
  const failedDeletes = () =>
    a.app.database.sqlite
      .prepare("SELECT count(*) FROM federation_delivery_failures WHERE host = ? AND activity_type = 'Delete'")
      .pluck()
      .get(first.host) as number;

  await t.test("Alice's post, deleted while B is down, goes from B's feeds, notifications, search and storage on the retry", async (t) => {
    const photos = [];
    for (const altText of ['tub', 'tiles']) photos.push({ s3Key: await upload(a.app, alice.token, await makeJpeg(160, 120)), altText });
    const posted = await createPost(a.app, alice.token, { photos, caption: 'Bath night #tubtime' });
    t.equal(posted.statusCode, 201);
    const asBob = client(b.app, bob.token);
    let there = 0;
    await eventually('it reaches B', async () => {
      there = ((await asBob('GET', '/api/followFeed')).json as Array<{ postid: number; caption: string }>).find((p) => p.caption.startsWith('Bath'))?.postid ?? 0;
      return there > 0;
    });
    // Carol, on B, mentions Bob in a comment on it: a notification of Bob's that hangs on that post.
    t.equal((await client(b.app, carol.token)('POST', '/api/comment', { postId: there, comment: '@bob look at this tub' })).status, 201);
    t.match(JSON.stringify((await asBob('GET', '/api/notifications')).json), /look at this tub/, "in Bob's notifications");
    t.match((await asBob('GET', '/api/search-tags?tag=tubtime')).json, [{ tag: 'tubtime', postCount: 1 }], 'found by its tag');
    t.match(await traces(there), { posts: 1, objects: 4, comments: 1, mentions: 1, remoteMedia: 2 }, 'two photos, a display and a thumbnail each (no medium at this size)');

    await stopB();
    t.equal((await asAlice('DELETE', `/api/post?postId=${posted.json().postid}`)).status, 200);
    await eventually('the Delete to B fails while it is down', () => failedDeletes() >= 1);
    t.ok(a.app.database.sqlite.prepare('SELECT count(*) FROM federation_queue').pluck().get() as number > 0, 'and waits in the queue for its retry');
    await startB();

    await eventually('the Delete arrives on its retry', async () => (await traces(there)).posts === 0);
    t.same(await traces(there), { posts: 0, objects: 0, comments: 0, mentions: 0, remoteMedia: 0 }, 'no row and no photo left');
    const asBobAgain = await as(bob);
    t.same((await asBobAgain('GET', '/api/followFeed')).json, [], "gone from Bob's feed");
    t.notMatch(JSON.stringify((await asBobAgain('GET', '/api/notifications')).json), /look at this tub/, 'and from his notifications');
    const tags = (await asBobAgain('GET', '/api/search-tags?tag=tubtime')).json as Array<{ tag: string; postCount: number }>;
    t.equal(tags.find((m) => m.tag === 'tubtime')?.postCount ?? 0, 0, 'and from search');
    t.equal((await asBobAgain('GET', `/api/post-photo?postId=${there}`)).status, 404);
  });

  await t.test("Alice's account, removed while B is down, goes from B with all she left there on the retry", async (t) => {
    const posted = await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(160, 120)), caption: 'Last one' });
    t.equal(posted.statusCode, 201);
    let asBob = await as(bob);
    let there = 0;
    await eventually('her post reaches B', async () => {
      there = ((await asBob('GET', '/api/followFeed')).json as Array<{ postid: number; caption: string }>).find((p) => p.caption === 'Last one')?.postid ?? 0;
      return there > 0;
    });
    // She likes and comments on a post of Bob's: two notifications of his from her.
    const his = await createPost(b.app, await b.tokenFor(bob), { s3Key: await upload(b.app, await b.tokenFor(bob), await makeJpeg(160, 120)), caption: 'mine' });
    t.equal(his.statusCode, 201);
    let hisOnA = 0;
    await eventually("Bob's post reaches A", async () => {
      hisOnA = ((await asAlice('GET', '/api/followFeed')).json as Array<{ postid: number; caption: string }>).find((p) => p.caption === 'mine')?.postid ?? 0;
      return hisOnA > 0;
    });
    await asAlice('POST', '/api/like', { postId: hisOnA });
    await asAlice('POST', '/api/comment', { postId: hisOnA, comment: 'Lovely tiles' });
    await eventually('her like and comment reach B', async () => {
      const text = JSON.stringify((await asBob('GET', '/api/notifications')).json);
      return text.includes('Lovely tiles') && text.includes(aliceThere);
    });
    t.match((await asBob('GET', `/api/search-profiles?username=${encodeURIComponent(aliceThere)}`)).json, [{ username: aliceThere }], 'B finds her');

    await stopB();
    const before = failedDeletes();
    t.ok((await asAlice('DELETE', '/api/account', { confirmUsername: 'alice' })).status < 300);
    await eventually("the Delete of her actor fails while B is down", () => failedDeletes() > before);
    await startB();
    asBob = await as(bob);

    const sqlite = () => b.app.database.sqlite;
    const herId = sqlite().prepare('SELECT id FROM users WHERE username = ?').pluck().get(aliceThere) as number;
    await eventually('the Delete arrives on its retry', () => (sqlite().prepare('SELECT deleted_at FROM users WHERE id = ?').pluck().get(herId) ?? null) !== null);
    t.same(await traces(there), { posts: 0, objects: 0, comments: 0, mentions: 0, remoteMedia: 0 }, 'her post and its photos are gone');
    t.notOk(((await asBob('GET', '/api/followFeed')).json as Array<{ caption: string }>).some((p) => p.caption === 'Last one'), "gone from Bob's feed");
    const bell = JSON.stringify((await asBob('GET', '/api/notifications')).json);
    t.notMatch(bell, /Lovely tiles/, 'her comment is gone from his notifications');
    t.notOk(bell.includes(aliceThere), 'and so is her like');
    t.equal(sqlite().prepare('SELECT count(*) FROM likes WHERE user_id = ?').pluck().get(herId), 0);
    t.equal(sqlite().prepare('SELECT count(*) FROM comments WHERE user_id = ?').pluck().get(herId), 0);
    t.same((await asBob('GET', `/api/search-profiles?username=${encodeURIComponent(aliceThere)}`)).json, [], 'search no longer finds her');
  });
});
