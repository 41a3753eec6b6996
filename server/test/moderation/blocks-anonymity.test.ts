import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { client, insertPost } from '../api/factories.js';
import { bearer, buildTestApp } from '../helpers.js';

/**
 * Blocks and anonymity (docs/api.md, "Blocks and anonymity"), tested from the blocker's side:
 * everything a person can read is taken before and after a block and compared whole, with a
 * control person who blocks nobody. Only what the rule allows may differ.
 */

const NAMES = ['ada', 'bea', 'cal', 'otto'] as const;
const TERMS = ['a', 'ad', 'ada', 'b', 'be', 'c', 'o', 'ot'];

interface Answer {
  status: number;
  json: unknown;
}

type Snapshot = Record<string, Answer>;

/** Everything `token`'s holder can read: feeds, own page, profiles, followers, search, comments, likes, bell. */
async function everything(app: FastifyInstance, token: string, postIds: number[]): Promise<Snapshot> {
  const urls = [
    '/api/discover-posts?limit=50',
    '/api/followFeed?limit=50',
    '/api/user-posts?limit=50',
    '/api/notifications?limit=50',
    '/api/notifications/unread',
    ...NAMES.map((n) => `/api/view-user-posts?limit=50&username=${n}`),
    ...NAMES.map((n) => `/api/account/${n}/followers`),
    ...TERMS.map((term) => `/api/search-profiles?username=${term}`),
    ...postIds.flatMap((id) => [`/api/comment?postId=${id}`, `/api/like?postId=${id}`]),
  ];
  const seen: Snapshot = {};
  for (const url of urls) {
    const res = await app.inject({ url, headers: bearer(token) });
    seen[url] = { status: res.statusCode, json: res.json() };
  }
  return seen;
}

/** The keys whose answers differ. */
const changed = (a: Snapshot, b: Snapshot) => Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));

type Post = { postid: number; isAnonymous: boolean; username: string | null; comments: Array<{ username: string | null; content: string }> };

/** The anonymous posts a snapshot's Discover lists, whole (counts, first comments, everything). */
const anonymousPosts = (s: Snapshot) => (s['/api/discover-posts?limit=50']!.json as Post[]).filter((p) => p.isAnonymous);

/**
 * ada writes named posts and two anonymous ones, comments under both her own anonymous post
 * (shown without her name) and bea's, likes and follows bea, and bea her; cal and otto post
 * and comment too, so every list has something in it.
 */
async function world(t: { teardown(fn: () => unknown): void }) {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const users = Object.fromEntries(await Promise.all(NAMES.map(async (n) => [n, await createUser(n)] as const))) as Record<
    (typeof NAMES)[number],
    Awaited<ReturnType<typeof createUser>>
  >;
  const as = (n: (typeof NAMES)[number]) => client(app, users[n].token);
  let at = 1_000;
  const post = (n: (typeof NAMES)[number], caption: string, isAnonymous = false) =>
    insertPost(db, { userId: users[n].id, caption, isAnonymous, createdAt: (at += 1000) }).id;
  const posts = {
    adaNamed: post('ada', 'ada by name'),
    adaSecret1: post('ada', 'first secret', true),
    beaNamed: post('bea', 'bea by name'),
    adaSecret2: post('ada', 'second secret', true),
    calNamed: post('cal', 'cal by name'),
    ottoSecret: post('otto', 'otto secret', true),
    adaNamed2: post('ada', 'ada again'),
  };
  const ok = async (res: Promise<{ status: number; body: string }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`setup write answered ${r.status}: ${r.body}`);
  };
  await ok(as('ada')('POST', '/api/comment', { postId: posts.adaSecret2, comment: 'the author, unnamed' }));
  await ok(as('ada')('POST', '/api/comment', { postId: posts.beaNamed, comment: 'ada on bea' }));
  await ok(as('ada')('POST', '/api/comment', { postId: posts.calNamed, comment: 'ada on cal' }));
  await ok(as('cal')('POST', '/api/comment', { postId: posts.adaSecret1, comment: 'cal on the first secret' }));
  await ok(as('otto')('POST', '/api/comment', { postId: posts.adaNamed, comment: 'otto on ada' }));
  await ok(as('ada')('POST', '/api/like', { postId: posts.beaNamed }));
  await ok(as('cal')('POST', '/api/like', { postId: posts.adaSecret1 }));
  await ok(as('bea')('POST', '/api/like', { postId: posts.adaNamed }));
  await ok(as('ada')('POST', '/api/account/bea/follow'));
  await ok(as('bea')('POST', '/api/account/ada/follow'));
  await ok(as('cal')('POST', '/api/account/ada/follow'));
  await ok(as('otto')('POST', '/api/account/bea/follow'));
  const ids = Object.values(posts);
  const snapshot = (n: (typeof NAMES)[number]) => everything(app, users[n].token, ids);
  return { app, users, as, posts, snapshot };
}

t.test('a block made on an anonymous post hides that post from the blocker, and nothing else', async (t) => {
  const { as, posts, snapshot } = await world(t);
  const before = { bea: await snapshot('bea'), cal: await snapshot('cal'), ada: await snapshot('ada') };

  const res = await as('bea')('POST', `/api/posts/${posts.adaSecret1}/block-author`);
  t.same(res.json, { blocked: true });
  t.notMatch(res.body, /ada/);

  const after = { bea: await snapshot('bea'), cal: await snapshot('cal'), ada: await snapshot('ada') };
  t.same(changed(before.cal, after.cal), [], 'the control person sees exactly what they saw');
  t.same(changed(before.ada, after.ada), [], 'the author sees exactly what they saw');
  t.same(
    changed(before.bea, after.bea).sort(),
    ['/api/discover-posts?limit=50', `/api/comment?postId=${posts.adaSecret1}`, `/api/like?postId=${posts.adaSecret1}`].sort(),
    'the blocker: only Discover and that post’s own comments and likes change',
  );
  const discoverBefore = before.bea['/api/discover-posts?limit=50']!.json as Post[];
  t.same(after.bea['/api/discover-posts?limit=50']!.json, discoverBefore.filter((p) => p.postid !== posts.adaSecret1), 'Discover lost that one post, nothing else');
  t.equal(after.bea[`/api/comment?postId=${posts.adaSecret1}`]!.status, 404);
  t.ok(anonymousPosts(after.bea).some((p) => p.postid === posts.adaSecret2), 'the same author’s other anonymous post stays: it is not linked to the blocked one');

  const blocks = (await as('bea')('GET', '/api/blocks')).json.blocks;
  t.match(blocks, [{ username: null, profilePictureUrl: null }], 'the list shows no name');

  // Interactions stop: the author cannot reach the blocker any more…
  t.equal((await as('ada')('POST', '/api/comment', { postId: posts.beaNamed, comment: 'still here' })).status, 403, 'no comment on the blocker’s posts');
  t.equal((await as('ada')('DELETE', `/api/like?postId=${posts.beaNamed}`)).status, 200, 'taking a like back is no interaction');
  t.equal((await as('ada')('POST', '/api/like', { postId: posts.beaNamed })).status, 403, 'no like');
  t.equal((await as('ada')('DELETE', '/api/account/bea/follow')).status, 200);
  t.equal((await as('ada')('POST', '/api/account/bea/follow')).status, 403, 'no follow');
  // …and the blocker cannot reach the blocked post; refusing anything else would name its author.
  t.equal((await as('bea')('POST', '/api/like', { postId: posts.adaSecret1 })).status, 404);
  t.equal((await as('bea')('POST', '/api/like', { postId: posts.adaSecret2 })).status, 201, 'the author’s other anonymous post is like anyone’s');
  t.equal((await as('bea')('POST', '/api/like', { postId: posts.adaNamed2 })).status, 201, 'and so are their named posts');

  const again = await as('bea')('POST', `/api/posts/${posts.adaSecret2}/block-author`);
  t.same(again.json, { blocked: true }, 'a second anonymous post of the same author is a second block');
  t.equal((await as('bea')('GET', '/api/blocks')).json.blocks.length, 2, 'listed apart, not merged into one person');
  const lifted = (await as('bea')('GET', '/api/blocks')).json.blocks as Array<{ blockId: number }>;
  for (const b of lifted) t.same((await as('bea')('DELETE', `/api/blocks/${b.blockId}`)).json, { blocked: false });
  t.ok(anonymousPosts(await snapshot('bea')).some((p) => p.postid === posts.adaSecret1), 'unblocked: the post is back');
});

t.test('a block by name hides named content both ways and changes no one’s anonymous posts', async (t) => {
  const { as, posts, snapshot } = await world(t);
  const before = { bea: await snapshot('bea'), cal: await snapshot('cal'), ada: await snapshot('ada') };

  t.same((await as('bea')('POST', '/api/account/ada/block')).json, { blocked: true });
  const after = { bea: await snapshot('bea'), cal: await snapshot('cal'), ada: await snapshot('ada') };

  for (const who of ['bea', 'ada', 'cal'] as const) {
    t.same(anonymousPosts(after[who]), anonymousPosts(before[who]), `${who}: the same anonymous posts, whole, with the same counts and unnamed comments`);
  }
  const named = (s: Snapshot) => (s['/api/discover-posts?limit=50']!.json as Post[]).filter((p) => !p.isAnonymous);
  const withoutAda = (list: Post[]) =>
    list.filter((p) => p.username !== 'ada').map((p) => ({ ...p, comments: p.comments.filter((c) => c.username !== 'ada') }));
  t.same(named(after.bea), withoutAda(named(before.bea)), 'the blocker: ada’s named posts and named comments are gone, the rest as it was');
  t.same(named(after.ada).map((p) => p.postid), named(before.ada).filter((p) => p.username !== 'bea').map((p) => p.postid), 'and the other way');
  t.same(after.cal['/api/discover-posts?limit=50'], before.cal['/api/discover-posts?limit=50'], 'the control’s Discover is untouched');
  t.same(changed(before.cal, after.cal).sort(), ['/api/account/ada/followers', '/api/account/bea/followers', '/api/view-user-posts?limit=50&username=ada', '/api/view-user-posts?limit=50&username=bea'].sort(),
    'the control sees only the follows between them gone (their lists and counts)');

  t.match(after.bea['/api/view-user-posts?limit=50&username=ada']!.json, { isBlocked: true, posts: [] });
  t.equal(after.ada['/api/view-user-posts?limit=50&username=bea']!.status, 404);
  t.same(after.bea['/api/account/ada/followers']!.json, [], 'the followers list as the profile: nothing listed for someone blocked');
  t.equal(after.ada['/api/account/bea/followers']!.status, 404, 'and 404 where the profile is 404');
  const found = (s: Snapshot, term: string) => (s[`/api/search-profiles?username=${term}`]!.json as Array<{ username: string }>).map((m) => m.username);
  t.notOk(found(after.bea, 'a').includes('ada'));
  t.notOk(found(after.ada, 'b').includes('bea'));
  t.same(found(after.cal, 'a'), found(before.cal, 'a'));
  const unnamed = (s: Snapshot) => ((s[`/api/comment?postId=${posts.adaSecret2}`]!.json as Array<{ username: string | null; content: string }>));
  t.same(unnamed(after.bea), unnamed(before.bea), 'the author’s unnamed comment under their anonymous post stays');

  // Interactions stop both ways on named things; anonymous posts take them, as from anyone.
  t.equal((await as('bea')('POST', '/api/like', { postId: posts.adaNamed2 })).status, 404);
  t.equal((await as('ada')('POST', '/api/comment', { postId: posts.beaNamed, comment: 'hi' })).status, 404);
  t.equal((await as('bea')('POST', '/api/account/ada/follow')).status, 409);
  t.equal((await as('ada')('POST', '/api/account/bea/follow')).status, 404);
  t.equal((await as('bea')('POST', '/api/like', { postId: posts.adaSecret2 })).status, 201, 'a refusal here would name the author');
});
