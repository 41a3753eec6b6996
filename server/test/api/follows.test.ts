import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { client, userCounters } from './factories.js';

t.test('follow, followers, unfollow: rules and counters', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('Alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const db = app.database.sqlite;
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);

  const followed = await asBob('POST', '/api/account/alice/follow');
  t.equal(followed.status, 200, 'usernames match in any case');
  t.same(followed.json, { following: true, requested: false, followerCount: 1 });
  t.same((await asCarol('POST', '/api/account/ALICE/follow')).json, { following: true, requested: false, followerCount: 2 });
  t.match(userCounters(db, alice.id), { followerCount: 2, followingCount: 0 });
  t.match(userCounters(db, bob.id), { followerCount: 0, followingCount: 1 });

  const followers = await asBob('GET', '/api/account/alice/followers');
  t.equal(followers.status, 200);
  t.same(followers.json, [{ username: 'bob' }, { username: 'carol' }]);

  const twice = await asBob('POST', '/api/account/Alice/follow');
  t.equal(twice.status, 409);
  t.equal(twice.json.error, 'conflict');
  t.match(userCounters(db, alice.id), { followerCount: 2 }, 'a second follow changes nothing');

  const self = await asBob('POST', '/api/account/BOB/follow');
  t.equal(self.status, 400, 'you cannot follow yourself');
  t.equal(self.json.error, 'invalid_request');
  t.equal((await asBob('POST', '/api/account/nobody/follow')).status, 404);
  t.equal((await asBob('DELETE', '/api/account/nobody/follow')).status, 404);
  t.equal((await asBob('GET', '/api/account/nobody/followers')).status, 404);

  const unfollowed = await asBob('DELETE', '/api/account/alice/follow');
  t.equal(unfollowed.status, 200);
  t.same(unfollowed.json, { following: false, requested: false, followerCount: 1 });
  const again = await asBob('DELETE', '/api/account/alice/follow');
  t.equal(again.status, 409, 'unfollow when not following');
  t.match(userCounters(db, alice.id), { followerCount: 1 });
  t.match(userCounters(db, bob.id), { followingCount: 0 });
  t.same((await asBob('GET', '/api/account/alice/followers')).json, [{ username: 'carol' }]);

  const profile = await asBob('GET', '/api/view-user-posts?username=alice');
  t.match(profile.json, { username: 'Alice', followerCount: 1, isFollowing: false });
  t.match((await asCarol('GET', '/api/view-user-posts?username=alice')).json, { isFollowing: true });
});

t.test('follow routes need a valid token', async (t) => {
  const { app } = await buildTestApp(t);
  for (const [method, url] of [
    ['GET', '/api/account/a/followers'],
    ['POST', '/api/account/a/follow'],
    ['DELETE', '/api/account/a/follow'],
  ] as const) {
    t.equal((await app.inject({ method, url })).statusCode, 401, `${method} ${url}`);
    t.equal((await app.inject({ method, url, headers: { authorization: 'Bearer x.y.z' } })).statusCode, 401);
  }
});
