import t from 'tap';
import { client } from '../api/factories.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { createRemoteMedia } from '../../src/federation/remote-media.js';
import { PLACEHOLDER_WEBP } from '../../src/kernel/storage/media-keys.js';
import { eventually } from './peer.js';
import { followAcross, twoServers } from './two-servers.js';

const DAY = 24 * 3_600_000;

interface Row {
  mediaKey: string;
  postId: number;
  url: string;
  bytes: number;
  storedAt: number | null;
}

/**
 * Issue 50, item 5: Bob on B follows Alice on A; her photos come to B through B's pipeline and are
 * counted against B's remote-media cap, dropped after the retention period (a fake clock) or past
 * the cap (a cap of a few KB), and fetched again when viewed, a placeholder meanwhile. B's own
 * people's posts never count and never fail for it. One pair of servers for every case.
 */
t.test('remote media: counted, capped oldest first, dropped after its retention, fetched again on view; local posts unaffected', async (t) => {
  const { a, b } = await twoServers(t, { ADMIN_USERNAMES: 'olga' });
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const olga = await b.createUser('olga');
  const asOlga = client(b.app, olga.token);
  const asBob = client(b.app, bob.token);
  const sqlite = b.app.database.sqlite;
  const rows = () =>
    sqlite
      .prepare('SELECT media_key AS mediaKey, post_id AS postId, url, bytes, stored_at AS storedAt FROM remote_media ORDER BY stored_at, rowid')
      .all() as Row[];
  const stored = async (mediaKey: string) => (await b.app.storage.stat(`media/${mediaKey}/display.webp`)) !== null;
  const view = (mediaKey: string, rendition = 'display') => b.app.inject({ method: 'GET', url: `/media/${mediaKey}/${rendition}.webp` });
  const renditionBytes = async (mediaKey: string) => {
    let sum = 0;
    for (const r of ['display', 'medium', 'thumb']) sum += (await b.app.storage.stat(`media/${mediaKey}/${r}.webp`))?.size ?? 0;
    return sum;
  };

  // Alice's profile picture on A: B keeps it as hers when it learns of her, and it counts too.
  const picture = await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(120, 90)), isProfilePicture: true });
  t.equal(picture.statusCode, 201);
  await followAcross(b, bob.token, a, alice);
  await eventually("Bob's follow is accepted", async () =>
    (await client(a.app, alice.token)('GET', '/api/account/alice/followers')).json.length === 1);
  /** Alice posts on A; resolves once B has kept it, with B's rows of remote media. */
  let posted = 0;
  const alicePosts = async (photos: number) => {
    const items = [];
    for (let i = 0; i < photos; i++) items.push({ s3Key: await upload(a.app, alice.token, await makeJpeg(120, 90)), altText: `photo ${i + 1}` });
    t.equal((await createPost(a.app, alice.token, photos === 1 ? { ...items[0], caption: `post ${++posted}` } : { photos: items, caption: `post ${++posted}` })).statusCode, 201);
    const before = rows().length;
    await eventually(`post ${posted} reaches B`, () => rows().length >= before + photos);
    return rows().slice(-photos);
  };

  await t.test('counted: each photo and her picture kept with its address on A and its renditions’ size; the operator page shows them', async (t) => {
    await eventually('her picture is kept on B', () => rows().length === 1);
    const [pictureRow] = rows();
    t.equal(sqlite.prepare('SELECT is_profile_picture FROM posts WHERE id = ?').pluck().get(pictureRow!.postId), 1, 'her profile picture');
    const [first, second] = await alicePosts(2);
    t.ok(first && second);
    for (const row of [pictureRow!, first!, second!]) {
      t.ok(row.url.startsWith(`${a.origin}/media/`), 'the address it came from, on A');
      t.equal(row.bytes, await renditionBytes(row.mediaKey), 'its bytes are the renditions stored here');
      t.ok(row.storedAt !== null);
    }
    const use = await asOlga('GET', '/api/admin/federation/media');
    t.equal(use.status, 200);
    const all = pictureRow!.bytes + first!.bytes + second!.bytes;
    t.same(use.json, { capBytes: 5 * 1024 ** 3, retentionDays: 30, storedBytes: all, stored: 3, dropped: 0 }, '5 GiB and 30 days by default');
    t.equal((await asBob('GET', '/api/admin/federation/media')).status, 403, "an operator's page only");

    // A post of Bob's, here: not remote media, whatever its size.
    t.equal((await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(640, 480)), caption: 'mine' })).statusCode, 201);
    t.same((await asOlga('GET', '/api/admin/federation/media')).json.storedBytes, all, 'a local post does not count');
  });

  await t.test('the operator sets the cap and retention; bad values are refused and change nothing', async (t) => {
    for (const [body, why] of [
      [{ capBytes: -1, retentionDays: 30 }, 'a negative cap'],
      [{ capBytes: 1.5, retentionDays: 30 }, 'a fraction'],
      [{ capBytes: 1000, retentionDays: 5000 }, 'a retention past 10 years'],
      [{ capBytes: 1000 }, 'no retention'],
      [{ capBytes: 1000, retentionDays: 30, extra: 1 }, 'an unknown field'],
    ] as const) {
      const res = await asOlga('PUT', '/api/admin/federation/media', body);
      t.equal(res.status, 400, why);
      t.ok(res.json.error && res.json.message, `${why}: a clear error`);
    }
    t.equal((await asBob('PUT', '/api/admin/federation/media', { capBytes: 0, retentionDays: 0 })).status, 403);
    t.match((await asOlga('GET', '/api/admin/federation/media')).json, { capBytes: 5 * 1024 ** 3, retentionDays: 30, stored: 3 }, 'unchanged');
    const set = await asOlga('PUT', '/api/admin/federation/media', { capBytes: 0, retentionDays: 7 });
    t.equal(set.status, 200);
    t.match(set.json, { capBytes: 0, retentionDays: 7, stored: 3, dropped: 0 }, 'no cap, 7 days: nothing is past them yet');
    const logged = sqlite.prepare("SELECT target FROM moderation_actions WHERE action = 'change_remote_media'").pluck().all();
    t.same(logged, ['no cap, kept 7 days'], 'in the moderation log');
  });

  await t.test('past its retention (a fake clock) a photo is dropped; viewed, a placeholder, then it is fetched again from A', async (t) => {
    // The oldest of her post's photos (her picture is older still).
    const [, oldest] = rows();
    const later = createRemoteMedia(sqlite, {
      storage: b.app.storage,
      fetchOriginal: async () => null,
      process: async () => {
        throw new Error('not used by the sweep');
      },
      log: { info: () => {}, warn: () => {} },
      now: () => Math.min(...rows().map((r) => r.storedAt!)) + 7 * DAY - 1,
    });
    t.equal(await later.sweep(), 0, 'a moment before 7 days: kept');
    const afterWeek = createRemoteMedia(sqlite, {
      storage: b.app.storage,
      fetchOriginal: async () => null,
      process: async () => {
        throw new Error('not used by the sweep');
      },
      log: { info: () => {}, warn: () => {} },
      now: () => Math.max(...rows().map((r) => r.storedAt!)) + 7 * DAY + 1,
    });
    t.equal(await afterWeek.sweep(), 3, 'past 7 days: her photos and her picture dropped');
    for (const row of rows()) {
      t.equal(row.storedAt, null);
      t.equal(row.bytes, 0);
      t.notOk(await stored(row.mediaKey), 'its renditions are gone from storage');
    }
    t.equal(sqlite.prepare('SELECT count(*) FROM posts WHERE id = ?').pluck().get(oldest!.postId), 1, 'the post keeps its row');
    t.match((await asOlga('GET', '/api/admin/federation/media')).json, { storedBytes: 0, stored: 0, dropped: 3 });

    // Bob opens his feed: the photo is asked for; a placeholder, never cached, while B fetches it again.
    const first = await view(oldest!.mediaKey);
    t.equal(first.statusCode, 200, 'not a broken image');
    t.equal(first.headers['cache-control'], 'no-store');
    t.same(first.rawPayload, PLACEHOLDER_WEBP, 'the placeholder');
    t.equal((await view(oldest!.mediaKey, 'thumb')).statusCode, 200, 'its thumbnail too, one refetch for both');
    t.equal(await b.app.remoteMedia.refetching(oldest!.mediaKey), true, 'fetched again from A');
    const again = await view(oldest!.mediaKey);
    t.equal(again.statusCode, 200);
    t.notSame(again.rawPayload, PLACEHOLDER_WEBP, 'the photo itself now');
    t.match(again.headers['cache-control'], /immutable/);
    const row = rows().find((r) => r.mediaKey === oldest!.mediaKey)!;
    t.equal(row.bytes, await renditionBytes(row.mediaKey), 'counted again');
    t.ok(row.storedAt !== null && row.storedAt >= Date.now() - 60_000, 'stored now: its retention starts again');
    t.equal((await b.app.inject({ method: 'GET', url: `/media/${'x'.repeat(22)}/display.webp` })).statusCode, 404, 'an unknown photo is still a 404');
  });

  await t.test('a cap of a few KB: the oldest remote photos go first; a full store never stops a local post', async (t) => {
    const [kept] = rows().filter((r) => r.storedAt !== null);
    const cap = kept!.bytes + 1024;
    t.ok(cap < 20_000, `a cap of a few KB (${cap} bytes)`);
    t.equal((await asOlga('PUT', '/api/admin/federation/media', { capBytes: cap, retentionDays: 30 })).status, 200);
    const [newest] = await alicePosts(1);
    await eventually('the cap is applied', () => rows().filter((r) => r.storedAt !== null).length === 1);
    const now = rows();
    t.equal(now.find((r) => r.mediaKey === kept!.mediaKey)!.storedAt, null, 'the older photo was dropped');
    t.notOk(await stored(kept!.mediaKey));
    t.ok(now.find((r) => r.mediaKey === newest!.mediaKey)!.storedAt !== null, 'the newest kept');
    t.ok(await stored(newest!.mediaKey));
    const use = (await asOlga('GET', '/api/admin/federation/media')).json;
    t.ok(use.storedBytes <= cap, `within the cap (${use.storedBytes} of ${cap} bytes)`);
    t.match(use, { stored: 1, dropped: 3 });

    // Full: Bob still posts, and his photo is served.
    const mine = await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(640, 480)), caption: 'still mine' });
    t.equal(mine.statusCode, 201, 'a local post with the remote cap full');
    const mineKey = sqlite.prepare('SELECT media_key FROM posts WHERE id = ?').pluck().get(mine.json().postid) as string;
    t.equal((await view(mineKey)).statusCode, 200);
    t.equal((await asOlga('GET', '/api/admin/federation/media')).json.storedBytes, use.storedBytes, 'and it is not counted');

    // The disk refuses the refetch of a dropped photo: the viewer gets the placeholder, not a 500, and nothing half-written stays.
    const write = b.app.storage.write.bind(b.app.storage);
    b.app.storage.write = async () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    };
    try {
      const res = await view(kept!.mediaKey);
      t.equal(res.statusCode, 200, 'the placeholder');
      t.same(res.rawPayload, PLACEHOLDER_WEBP);
      t.equal(await b.app.remoteMedia.refetching(kept!.mediaKey), false, 'the refetch failed');
      t.equal(rows().find((r) => r.mediaKey === kept!.mediaKey)!.storedAt, null, 'still dropped, asked again next view');
      t.notOk(await stored(kept!.mediaKey));
    } finally {
      b.app.storage.write = write;
    }
    const feed = await asBob('GET', '/api/followFeed');
    t.equal(feed.status, 200, "Bob's feed still answers");
    t.equal(feed.json.length, 2, "both of Alice's posts are in it, photos dropped or not");

    // A photo larger than the whole cap is shown as the placeholder rather than kept past it.
    t.equal((await asOlga('PUT', '/api/admin/federation/media', { capBytes: 100, retentionDays: 30 })).json.stored, 0, 'a lower cap drops at once');
    t.equal((await view(newest!.mediaKey)).statusCode, 200);
    t.equal(await b.app.remoteMedia.refetching(newest!.mediaKey), false, 'not kept: larger than the cap');
    t.notOk(await stored(newest!.mediaKey));
  });
});
