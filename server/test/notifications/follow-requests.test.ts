import t, { type Test } from 'tap';
import { client } from '../api/factories.js';
import { bellsAreExact } from './bells.js';
import { buildTestApp } from '../helpers.js';

// Issue 48, point 1: approving a follow request tells the person who asked ("X accepted your follow
// request"), once, and tells the approver nothing: they pressed Approve themselves.

async function setUp(t: Test) {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'kim' });
  const priya = await createUser('priya');
  const sam = await createUser('sam');
  const asPriya = client(app, priya.token);
  const asSam = client(app, sam.token);
  t.equal((await asPriya('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  const bell = async (as: typeof asSam) => (await as('GET', '/api/notifications/unread')).json.unread as number;
  const groups = async (as: typeof asSam) => (await as('GET', '/api/notifications')).json as Array<{ kind: string; actors: Array<{ username: string }>; count: number }>;
  return { app, createUser, db: app.database.sqlite, priya, sam, asPriya, asSam, bell, groups };
}

t.test('approving a request notifies the requester once and the approver not at all', async (t) => {
  const { db, asPriya, asSam, bell, groups } = await setUp(t);
  t.same((await asSam('POST', '/api/account/priya/follow')).json, { following: false, requested: true, followerCount: 0 });
  t.equal(await bell(asSam), 0, 'asking tells the asker nothing yet');

  t.equal((await asPriya('POST', '/api/follow-requests/sam/approve')).status, 200);
  t.equal(await bell(asSam), 1, "sam's bell counts the acceptance");
  t.match(await groups(asSam), [{ kind: 'followAccepted', actors: [{ username: 'priya' }], count: 1 }], 'sam reads "priya accepted your follow request"');
  t.equal((await groups(asSam)).length, 1, 'and nothing else');
  t.equal(await bell(asPriya), 0, 'priya is not told of her own approval');
  t.same(await groups(asPriya), [], 'no "sam started following you" for the follow she approved');
  t.ok(bellsAreExact(db), 'the bells the writes keep equal what the rows say');

  t.equal((await asPriya('POST', '/api/follow-requests/sam/approve')).status, 404, 'approving twice: there is no request left');
  t.equal((await asSam('POST', '/api/account/priya/follow')).status, 409, 'asking again while following is refused');
  t.equal(await bell(asSam), 1, 'neither notifies sam a second time');
  t.equal((await groups(asSam)).length, 1);

  // Reading the screen clears the bell and keeps the notification.
  const [group] = (await asSam('GET', '/api/notifications')).json as Array<{ latestTime: number }>;
  t.equal((await asSam('POST', '/api/notifications/read', { upTo: group!.latestTime })).json.unread, 0);
  t.ok(bellsAreExact(db));
});

t.test('cancelling and asking again before the answer makes one notification; unfollowing takes it back', async (t) => {
  const { db, asPriya, asSam, bell, groups } = await setUp(t);
  await asSam('POST', '/api/account/priya/follow');
  t.same((await asSam('DELETE', '/api/account/priya/follow')).json, { following: false, requested: false, followerCount: 0 }, 'sam cancels');
  await asSam('POST', '/api/account/priya/follow');
  await asPriya('POST', '/api/follow-requests/sam/approve');
  t.equal(await bell(asSam), 1, 'one acceptance, one notification');

  // As an undone like: the follow gone, its notification goes with it.
  t.same((await asSam('DELETE', '/api/account/priya/follow')).json, { following: false, requested: false, followerCount: 0 });
  t.equal(await bell(asSam), 0, 'unfollowing takes the unread acceptance out of the bell');
  t.same(await groups(asSam), [], 'and off the screen');
  t.ok(bellsAreExact(db));
});

t.test('making the account public approves the waiting requests: the requesters are told, the owner is not', async (t) => {
  const { db, asPriya, asSam, bell, groups } = await setUp(t);
  await asSam('POST', '/api/account/priya/follow');
  t.match((await asPriya('PUT', '/api/account/privacy', { isPrivate: false })).json, { isPrivate: false, approved: 1 });
  t.match(await groups(asSam), [{ kind: 'followAccepted', actors: [{ username: 'priya' }] }]);
  t.equal(await bell(asPriya), 0);
  t.ok(bellsAreExact(db));
});

t.test('a block, a suspension or a removed account takes the acceptance back', async (t) => {
  const { app, createUser, db, asPriya, asSam, bell, groups } = await setUp(t);
  await asSam('POST', '/api/account/priya/follow');
  await asPriya('POST', '/api/follow-requests/sam/approve');
  t.equal(await bell(asSam), 1);

  t.equal((await asSam('POST', '/api/account/priya/block')).status, 200, 'sam blocks priya');
  t.equal(await bell(asSam), 0, 'the block ends the follow and its notification');
  t.same(await groups(asSam), []);
  t.ok(bellsAreExact(db));
  t.equal((await asSam('DELETE', '/api/account/priya/block')).status, 200);
  t.equal(await bell(asSam), 0, 'unblocking does not bring back a follow the block ended');

  await asSam('POST', '/api/account/priya/follow');
  await asPriya('POST', '/api/follow-requests/sam/approve');
  t.equal(await bell(asSam), 1, 'asked and approved again: one notification');

  // Suspension hides what the suspended person did, this acceptance too, and lifting it brings it back.
  const kim = client(app, (await createUser('kim')).token);
  t.equal((await kim('POST', '/api/admin/users/priya/suspend', { reason: 'spam' })).status, 200);
  t.equal(await bell(asSam), 0, "priya suspended: her acceptance leaves sam's bell");
  t.same(await groups(asSam), []);
  t.ok(bellsAreExact(db));
  t.equal((await kim('DELETE', '/api/admin/users/priya/suspend', { reason: 'ok' })).status, 200);
  t.equal(await bell(asSam), 1, 'lifted: back');
  t.ok(bellsAreExact(db));

  t.equal((await asPriya('DELETE', '/api/account', { confirmUsername: 'priya' })).status, 200, 'priya removes her account');
  t.equal(await bell(asSam), 0, 'her acceptance goes with her account');
  t.same(await groups(asSam), []);
  t.ok(bellsAreExact(db));
});
