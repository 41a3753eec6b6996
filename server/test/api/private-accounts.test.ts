import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { client, insertComment, insertPost, userCounters } from './factories.js';

type Api = ReturnType<typeof client>;
interface Owner {
  name: string;
  named: number;
  anonymous: number;
}

// Every read answer that could show a named post, and what "seen" means in each (docs/api.md, "Private accounts").
const ids = (list: Array<{ postid: number }>) => list.map((p) => p.postid);
const READS: Array<[string, (api: Api, owner: Owner) => Promise<boolean>]> = [
  ['Discover', async (api, o) => ids((await api('GET', '/api/discover-posts')).json).includes(o.named)],
  ['Following feed', async (api, o) => ids((await api('GET', '/api/followFeed')).json).includes(o.named)],
  ['profile posts', async (api, o) => ids((await api('GET', `/api/view-user-posts?username=${o.name}`)).json.posts).includes(o.named)],
  ['comments of the post', async (api, o) => (await api('GET', `/api/comment?postId=${o.named}`)).status === 200],
  ['likes of the post', async (api, o) => (await api('GET', `/api/like?postId=${o.named}`)).status === 200],
];
// Writes that name a post are refused as for a post that is not there.
const WRITES: Array<[string, (api: Api, owner: Owner) => Promise<boolean>]> = [
  ['like', async (api, o) => (await api('POST', '/api/like', { postId: o.named })).status === 201],
  ['comment', async (api, o) => (await api('POST', '/api/comment', { postId: o.named, comment: 'cheers' })).status === 201],
  ['report', async (api, o) => (await api('POST', '/api/reports', { kind: 'post', id: o.named, reason: 'spam' })).status === 201],
];

// Feed pages inline and in a read worker (server/src/feeds/read-worker.ts): the same statements on another connection.
for (const workers of ['0', '1']) t.test(`a private account's named posts, through every read, against a public account's (READ_WORKERS=${workers})`, async (t) => {
  const { app, createUser } = await buildTestApp(t, { READ_WORKERS: workers });
  const db = app.database.sqlite;
  const priv = await createUser('priv');
  const pub = await createUser('pub');
  const follower = await createUser('follower');
  const asker = await createUser('asker');
  const stranger = await createUser('stranger');
  const api = (u: { token: string }) => client(app, u.token);

  // Same shape for both: one named post with a comment, one anonymous post, and two followers-to-be.
  const owners = new Map<string, Owner & { api: Api }>();
  for (const u of [priv, pub]) {
    const named = insertPost(db, { userId: u.id, caption: `named by ${u.username}` }).id;
    insertComment(db, named, u.id, 'first!');
    const anonymous = insertPost(db, { userId: u.id, caption: 'secret', isAnonymous: true }).id;
    owners.set(u.username, { name: u.username, named, anonymous, api: api(u) });
  }
  // The follower follows both while they are public; then priv turns private: existing followers stay.
  for (const name of ['priv', 'pub']) t.equal((await api(follower)('POST', `/api/account/${name}/follow`)).status, 200);
  const made = await owners.get('priv')!.api('PUT', '/api/account/privacy', { isPrivate: true });
  t.same(made.json, { isPrivate: true, approved: 0 });
  // The asker asks to follow both: a request for priv, a follow for pub.
  t.same((await api(asker)('POST', '/api/account/priv/follow')).json, { following: false, requested: true, followerCount: 1 });
  t.same((await api(asker)('POST', '/api/account/pub/follow')).json, { following: true, requested: false, followerCount: 2 });

  const viewers = { self: null, follower, asker, stranger } as const;
  for (const [ownerName, owner] of owners) {
    for (const [who, user] of Object.entries(viewers)) {
      const as = user === null ? owner.api : api(user);
      const expected = ownerName === 'pub' || who === 'self' || who === 'follower';
      for (const [read, sees] of READS) {
        // Nobody's Following feed holds their own posts.
        if (read === 'Following feed' && who === 'self') continue;
        // The stranger follows nobody: their Following feed is empty for either owner.
        const want = read === 'Following feed' && who === 'stranger' ? false : expected;
        t.equal(await sees(as, owner), want, `${read}: ${who} ${want ? 'sees' : 'does not see'} ${ownerName}'s named post`);
      }
      // Anonymous posts are as visible as anyone's: Discover lists them for everyone.
      t.ok(ids((await as('GET', '/api/discover-posts')).json).includes(owner.anonymous), `${who} sees ${ownerName}'s anonymous post on Discover`);
      t.equal((await as('GET', `/api/comment?postId=${owner.anonymous}`)).status, 200, `${who} reads the comments of ${ownerName}'s anonymous post`);
    }
    // The profile itself: name, picture, counts and privacy for everyone.
    const profile = (await api(stranger)('GET', `/api/view-user-posts?username=${ownerName}`)).json;
    t.match(profile, { username: ownerName, postCount: 1, followerCount: ownerName === 'pub' ? 2 : 1, isPrivate: ownerName === 'priv', isRequested: false });
  }
  t.match((await api(asker)('GET', '/api/view-user-posts?username=priv')).json, { isRequested: true, isFollowing: false, posts: [] });
  t.match((await owners.get('priv')!.api('GET', '/api/user-posts')).json, { isPrivate: true });

  for (const [ownerName, owner] of owners) {
    for (const [write, allowed] of WRITES) {
      const want = ownerName === 'pub';
      t.equal(await allowed(api(stranger), owner), want, `${write}: the stranger ${want ? 'may' : 'may not'} ${write} ${ownerName}'s post`);
    }
  }
  t.equal((await api(stranger)('POST', '/api/like', { postId: owners.get('priv')!.named })).json.error, 'not_found');
  // The follower may still like it.
  t.equal((await api(follower)('POST', '/api/like', { postId: owners.get('priv')!.named })).status, 201);
});

t.test('follow requests: approve, decline, cancel, and public again', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const priv = await createUser('Priv');
  const ann = await createUser('ann');
  const ben = await createUser('ben');
  const cat = await createUser('cat');
  const asPriv = client(app, priv.token);
  const asAnn = client(app, ann.token);
  const asBen = client(app, ben.token);
  const asCat = client(app, cat.token);
  const post = insertPost(db, { userId: priv.id, caption: 'for friends' }).id;
  t.equal((await asPriv('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);

  for (const as of [asAnn, asBen, asCat]) t.same((await as('POST', '/api/account/priv/follow')).json, { following: false, requested: true, followerCount: 0 });
  t.equal((await asAnn('POST', '/api/account/priv/follow')).status, 409, 'asking twice');
  const waiting = await asPriv('GET', '/api/follow-requests');
  t.same(waiting.json.map((r: { username: string }) => r.username), ['ann', 'ben', 'cat'], 'oldest first');
  t.match(waiting.json[0], { profilePictureUrl: null, created_at: /^\d{4}-/ });
  t.same((await asAnn('GET', '/api/follow-requests')).json, [], 'only one\'s own requests');
  t.match(userCounters(db, priv.id), { followerCount: 0 });
  t.match(userCounters(db, ann.id), { followingCount: 0 });
  // The bell counts the waiting requests apart from the notifications; a request rings nothing else.
  t.same((await asPriv('GET', '/api/notifications/unread')).json, { unread: 0, followRequests: 3 });
  t.same((await asPriv('GET', '/api/notifications')).json, [], 'a request is not a follow');

  // Ann is approved: she follows, and sees the post only now.
  t.same((await asPriv('POST', '/api/follow-requests/ANN/approve')).json, { followerCount: 1 });
  t.match(userCounters(db, ann.id), { followingCount: 1 });
  t.match((await asAnn('GET', '/api/view-user-posts?username=priv')).json, { isFollowing: true, isRequested: false, posts: [{ postid: post }] });
  t.same(((await asAnn('GET', '/api/followFeed')).json as Array<{ postid: number }>).map((p) => p.postid), [post]);
  t.same((await asPriv('GET', '/api/account/priv/followers')).json, [{ username: 'ann' }]);
  // Issue 48: the approval is the requester's notification; the approver is not told of their own act.
  t.same((await asPriv('GET', '/api/notifications')).json, [], 'approving is not a "started following you"');
  t.match((await asAnn('GET', '/api/notifications')).json, [{ kind: 'followAccepted', actors: [{ username: 'Priv' }] }]);

  // Ben is declined; Cat cancels her own request.
  t.same((await asPriv('DELETE', '/api/follow-requests/ben')).json, { declined: true });
  t.match((await asBen('GET', '/api/view-user-posts?username=priv')).json, { isFollowing: false, isRequested: false, posts: [] });
  t.same((await asCat('DELETE', '/api/account/priv/follow')).json, { following: false, requested: false, followerCount: 1 });
  t.same((await asPriv('GET', '/api/follow-requests')).json, []);
  t.same((await asPriv('GET', '/api/notifications/unread')).json, { unread: 0, followRequests: 0 });

  // Ben asks again; Priv turns public: the waiting request is approved.
  await asBen('POST', '/api/account/priv/follow');
  t.same((await asPriv('PUT', '/api/account/privacy', { isPrivate: false })).json, { isPrivate: false, approved: 1 });
  t.same((await asPriv('GET', '/api/follow-requests')).json, []);
  t.match(userCounters(db, priv.id), { followerCount: 2 });
  t.match((await asBen('GET', '/api/view-user-posts?username=priv')).json, { isFollowing: true, isPrivate: false, posts: [{ postid: post }] });
  // Public: a follow is a follow again.
  t.same((await asCat('POST', '/api/account/priv/follow')).json, { following: true, requested: false, followerCount: 3 });
  t.match((await asPriv('GET', '/api/notifications')).json, [{ kind: 'follow', actors: [{ username: 'cat' }] }], 'and notifies its followee');
});

t.test('bad input about follow requests changes nothing', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const priv = await createUser('priv');
  const other = await createUser('other');
  const ann = await createUser('ann');
  const asPriv = client(app, priv.token);
  const asOther = client(app, other.token);
  const asAnn = client(app, ann.token);
  await asPriv('PUT', '/api/account/privacy', { isPrivate: true });
  await asOther('PUT', '/api/account/privacy', { isPrivate: true });
  await asAnn('POST', '/api/account/priv/follow');
  const requests = () => db.prepare('SELECT requester_id, target_id FROM follow_requests ORDER BY 1, 2').all();
  const before = requests();

  const self = await asPriv('POST', '/api/account/priv/follow');
  t.equal(self.status, 400, 'asking to follow oneself');
  t.equal(self.json.error, 'invalid_request');
  t.match(self.json, { message: String });

  const none = await asPriv('POST', '/api/follow-requests/other/approve');
  t.equal(none.status, 404, 'approving a request that was never made');
  t.equal(none.json.error, 'not_found');
  t.equal((await asPriv('POST', '/api/follow-requests/nobody/approve')).status, 404, 'from nobody');
  // Ann asked Priv, not Other: Other cannot approve or decline it.
  t.equal((await asOther('POST', '/api/follow-requests/ann/approve')).status, 404, 'approving someone else\'s request');
  t.equal((await asOther('DELETE', '/api/follow-requests/ann')).status, 404, 'declining someone else\'s request');
  t.equal((await asAnn('POST', '/api/follow-requests/ann/approve')).status, 404, 'the asker approving their own request');
  t.same(requests(), before, 'no request changed');
  t.match(userCounters(db, priv.id), { followerCount: 0 });
  t.match(userCounters(db, ann.id), { followingCount: 0 });

  for (const body of [{}, { isPrivate: 'yes' }, { isPrivate: true, extra: 1 }]) {
    const res = await asPriv('PUT', '/api/account/privacy', body);
    t.equal(res.status, 400, `privacy with ${JSON.stringify(body)}`);
  }
  t.equal(db.prepare('SELECT is_private FROM users WHERE id = ?').pluck().get(priv.id), 1, 'still private');
  t.equal((await asAnn('DELETE', '/api/account/other/follow')).status, 409, 'cancelling a request never made');

  // A block by name takes a waiting request away, either way.
  t.equal((await asPriv('POST', '/api/account/ann/block')).status, 200);
  t.same((await asPriv('GET', '/api/follow-requests')).json, []);
  t.equal((await asPriv('POST', '/api/follow-requests/ann/approve')).status, 404);

  for (const [method, url] of [['GET', '/api/follow-requests'], ['POST', '/api/follow-requests/a/approve'], ['DELETE', '/api/follow-requests/a'], ['PUT', '/api/account/privacy']] as const) {
    t.equal((await app.inject({ method, url })).statusCode, 401, `${method} ${url} needs a token`);
  }
});
