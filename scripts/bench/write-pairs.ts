// `npx tsx scripts/bench/write-pairs.ts <tree> <data-dir> [cycles] [pairs]`
// Like + unlike and follow + unfollow pairs straight through a tree's own repositories
// (server/src/social/likes-repository.ts, follows-repository.ts) on a seeded DATA_DIR,
// without HTTP: the database's share of the bench's write rows, with less noise than
// autocannon, for comparing two commits (each a `git worktree` with its own seeded set,
// run one after the other, a few times over). Prints the CPU µs per pair of each cycle.
// Writes as it goes: every pair undoes itself, but the counters' rows are rewritten.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRng } from './random.js';

interface Repos {
  like(postId: number, userId: number): unknown;
  unlike(postId: number, userId: number): unknown;
  follow(followerId: number, username: string): unknown;
  unfollow(followerId: number, username: string): unknown;
}

const [treeArg, dirArg, cyclesArg = '8', pairsArg = '3000'] = process.argv.slice(2);
if (!treeArg || !dirArg) throw new Error('usage: write-pairs.ts <tree> <data-dir> [cycles] [pairs]');
const tree = resolve(treeArg);
const cycles = Number(cyclesArg);
const pairs = Number(pairsArg);

async function open(): Promise<{ repos: Repos; username: (id: number) => string | undefined }> {
  const load = (file: string) => import(pathToFileURL(join(tree, 'server/src', file)).href);
  const { openDatabase } = await load('kernel/db/client.ts');
  const { createPostsRepository } = await load('posts/posts-repository.ts');
  const { createLikesRepository } = await load('social/likes-repository.ts');
  const { createFollowsRepository } = await load('social/follows-repository.ts');
  const { sqlite } = openDatabase(join(resolve(dirArg!), 'shower-beer.db'), join(tree, 'migrations'));
  const likes = createLikesRepository(sqlite, createPostsRepository(sqlite));
  const follows = createFollowsRepository(sqlite);
  const name = sqlite.prepare('SELECT username FROM users WHERE id = ?').pluck();
  return {
    repos: { like: likes.like, unlike: likes.unlike, follow: follows.follow, unfollow: follows.unfollow },
    username: (id) => name.get(id) as string | undefined,
  };
}

/** CPU µs per pair of `pairs` pairs; a pair whose first half is refused (not visible, already done) is drawn again. */
function measure(pair: () => boolean): number {
  const start = process.cpuUsage();
  for (let done = 0; done < pairs; ) if (pair()) done++;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / pairs;
}

async function main() {
  const info = JSON.parse(readFileSync(join(resolve(dirArg!), 'seed.json'), 'utf8')) as { postIds: [number, number]; counts: { users: number } };
  const [first, last] = info.postIds;
  const users = info.counts.users;
  const { repos, username } = await open();
  // The same draws for every tree: one seeded generator.
  const draw = createRng(12345).int;
  const attempt = (first: () => unknown, second: () => unknown): boolean => {
    try {
      first();
    } catch {
      return false;
    }
    second();
    return true;
  };
  const like: number[] = [];
  const follow: number[] = [];
  for (let c = 0; c < cycles; c++) {
    like.push(
      measure(() => {
        const post = first + draw(last - first + 1);
        const user = 1 + draw(users);
        return attempt(() => repos.like(post, user), () => repos.unlike(post, user));
      }),
    );
    follow.push(
      measure(() => {
        const follower = 1 + draw(users);
        const followee = username(1 + draw(users));
        return followee !== undefined && attempt(() => repos.follow(follower, followee), () => repos.unfollow(follower, followee));
      }),
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const show = (xs: number[]) => `${xs.map((v) => v.toFixed(0)).join(' ')} (median ${median(xs).toFixed(0)})`;
  console.log(`${tree}\n  like + unlike µs CPU: ${show(like)}\n  follow + unfollow µs CPU: ${show(follow)}`);
}

await main();
