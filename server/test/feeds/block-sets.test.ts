import t from 'tap';
import { client, insertPost, insertPosts } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';

/**
 * A viewer's block sets are kept per connection until users.blocks_version moves
 * (posts/posts-repository.ts, migration 0019): every change to a block, by either side,
 * is seen on the very next page, in a read worker as on the request thread.
 */
for (const readWorkers of ['0', '1']) {
  t.test(`blocks are seen on the next page (READ_WORKERS=${readWorkers})`, async (t) => {
    const { app, createUser } = await buildTestApp(t, { READ_WORKERS: readWorkers });
    const db = app.database.sqlite;
    const bea = await createUser('bea');
    const ada = await createUser('ada');
    const cy = await createUser('cy');
    const asBea = client(app, bea.token);
    const asAda = client(app, ada.token);
    const asCy = client(app, cy.token);
    const adaNamed = insertPost(db, { userId: ada.id, caption: 'ada named', createdAt: 3_000 }).id;
    const adaSecret = insertPost(db, { userId: ada.id, caption: 'ada anonymous', isAnonymous: true, createdAt: 2_000 }).id;
    const cyNamed = insertPost(db, { userId: cy.id, caption: 'cy named', createdAt: 1_000 }).id;
    const discover = async (as: typeof asBea) => ((await as('GET', '/api/discover-posts')).json as Array<{ postid: number }>).map((p) => p.postid);

    // bea has a block (of cy) from the start, so her pages take the blocking plan and keep her sets.
    t.same((await asBea('POST', '/api/account/cy/block')).json, { blocked: true });
    t.same(await discover(asBea), [adaNamed, adaSecret], 'cy blocked by name: cy’s named post is gone');
    t.same(await discover(asBea), [adaNamed, adaSecret], 'the same page again, from the kept sets');

    await asBea('POST', '/api/account/ada/block');
    t.same(await discover(asBea), [adaSecret], 'a new block by name: ada’s named post goes on the next page; her anonymous one stays');
    await asBea('DELETE', '/api/account/ada/block');
    t.same(await discover(asBea), [adaNamed, adaSecret], 'lifted: it is back on the next page');

    // The other side: ada blocks bea, which moves bea's version too.
    await asAda('POST', '/api/account/bea/block');
    t.same(await discover(asBea), [adaSecret], 'blocked by ada: ada’s named post leaves bea’s Discover at once');
    await asAda('DELETE', '/api/account/bea/block');
    t.same(await discover(asBea), [adaNamed, adaSecret], 'and comes back when ada lifts it');

    await asBea('POST', `/api/posts/${adaSecret}/block-author`);
    t.same(await discover(asBea), [adaNamed], 'a block through the anonymous post hides just that post');
    const blocks = (await asBea('GET', '/api/blocks')).json.blocks as Array<{ blockId: number; username: string | null }>;
    const throughPost = blocks.find((b) => b.username === null)!;
    await asBea('DELETE', `/api/blocks/${throughPost.blockId}`);
    t.same(await discover(asBea), [adaNamed, adaSecret], 'lifted: the anonymous post is back');

    await asBea('DELETE', '/api/account/cy/block');
    t.same(await discover(asBea), [adaNamed, adaSecret, cyNamed], 'no blocks left: the plain plan, everything listed');
    t.same(await discover(asCy), [adaNamed, adaSecret, cyNamed], 'cy sees the same');
  });
}

t.test('a page stays full when blocked people wrote most of the newest posts', async (t) => {
  const { app, createUser } = await buildTestApp(t, { READ_WORKERS: '1' });
  const db = app.database.sqlite;
  const bea = await createUser('bea');
  const ada = await createUser('ada');
  const cy = await createUser('cy');
  const asBea = client(app, bea.token);
  // cy's 30 older posts, then 50 of ada's, then ada's anonymous post and one of cy's on top.
  const cyOld = insertPosts(db, cy.id, 30, 10_000);
  insertPosts(db, ada.id, 50, 20_000);
  const adaSecret = insertPost(db, { userId: ada.id, caption: 'anonymous', isAnonymous: true, createdAt: 30_000 }).id;
  const cyNew = insertPost(db, { userId: cy.id, caption: 'newest', createdAt: 30_001 }).id;
  await asBea('POST', '/api/account/ada/block');

  const first = (await asBea('GET', '/api/discover-posts?limit=10')).json as Array<{ postid: number; cursor: string }>;
  t.same(
    first.map((p) => p.postid),
    [cyNew, adaSecret, ...cyOld.slice(-8).reverse()],
    'ten posts: the 50 named posts of the blocked person are read past, the anonymous one stays',
  );
  // The next pages carry on from the last one shown, with nobody blocked in between.
  const all = first.map((p) => p.postid);
  let page = first;
  for (let i = 0; i < 5 && page.length === 10; i++) {
    const res = await asBea('GET', `/api/discover-posts?limit=10&cursor=${page[page.length - 1]!.cursor}`);
    page = res.json as typeof first;
    all.push(...page.map((p) => p.postid));
  }
  t.same(all, [cyNew, adaSecret, ...cyOld.slice().reverse()], 'every page full, in order, until cy’s posts run out');
});
