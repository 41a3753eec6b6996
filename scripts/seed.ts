// `npm run seed -- [--scale small|reference] [--users N --posts N --likes N --comments N --follows N]
//                  [--data-dir DIR] [--seed N] [--force] [--verify] [--no-analyze]`
// Fills a DATA_DIR with a realistic community for the performance bench.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { proportionalSizes, seedDataDir, verifySeed } from './bench/seed-lib.js';

const { values } = parseArgs({
  options: {
    scale: { type: 'string' },
    users: { type: 'string' },
    posts: { type: 'string' },
    likes: { type: 'string' },
    comments: { type: 'string' },
    follows: { type: 'string' },
    'reader-follows': { type: 'string', default: '200' },
    media: { type: 'string', default: '6' },
    seed: { type: 'string', default: '1' },
    'data-dir': { type: 'string' },
    force: { type: 'boolean', default: false },
    verify: { type: 'boolean', default: false },
    'no-analyze': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(`Usage: npm run seed -- [options]
  --scale small|reference  presets: 10 000 posts, or 100k users / 1M posts / 5M likes / 1M comments / 1M follows
  --users --posts --likes --comments --follows N   sizes (missing ones follow the reference proportions of --posts)
  --reader-follows N       how many people "bench_reader" follows (default 200)
  --data-dir DIR           where to write (default: $DATA_DIR or ./data)
  --seed N                 PRNG seed (default 1)
  --force                  replace an existing database
  --verify                 recount every counter from the rows afterwards (slow at a million posts)
  --no-analyze             do not keep sqlite_stat1 (sqlite_stat4 is never kept)`);
  process.exit(0);
}

function int(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} must be a whole number, got "${raw}"`);
    process.exit(2);
  }
  return n;
}

const scale = values.scale ?? 'small';
if (scale !== 'small' && scale !== 'reference') {
  console.error('--scale must be small or reference');
  process.exit(2);
}
const posts = int('posts', values.posts) ?? (scale === 'reference' ? 1_000_000 : 10_000);
const base = scale === 'reference' && values.posts === undefined ? { users: 100_000, posts, likes: 5_000_000, comments: 1_000_000, follows: 1_000_000 } : proportionalSizes(posts);
const dataDir = resolve(values['data-dir'] ?? process.env.DATA_DIR ?? './data');

const sizes = {
  users: int('users', values.users) ?? base.users,
  posts,
  likes: int('likes', values.likes) ?? base.likes,
  comments: int('comments', values.comments) ?? base.comments,
  follows: int('follows', values.follows) ?? base.follows,
};

console.log(
  `Seeding ${dataDir}: ${sizes.users} users, ${sizes.posts} posts, ${sizes.likes} likes, ${sizes.comments} comments, ${sizes.follows} follows`,
);
try {
  const info = await seedDataDir({
    dataDir,
    ...sizes,
    seed: int('seed', values.seed) ?? 1,
    readerFollows: int('reader-follows', values['reader-follows']) ?? 200,
    mediaCount: Math.max(1, int('media', values.media) ?? 6),
    analyze: !values['no-analyze'],
    force: values.force,
    log: (line) => console.log(line),
  });
  const c = info.counts;
  console.log(
    `Done in ${info.seconds.toFixed(1)} s (${info.cpuSeconds?.toFixed(1)} s CPU): ${c.users} users, ${c.posts} posts (+${c.profilePictures} profile pictures), ` +
      `${c.likes} likes, ${c.comments} comments, ${c.follows} follows, ${c.blocks} blocks, ${c.suspended} suspended accounts.`,
  );
  console.log(`Bench client: ${info.reader.username} (follows ${info.reader.following}); most followed: ${info.celebrity.username}.`);
  if (values.verify) {
    const t = performance.now();
    const problems = verifySeed(join(dataDir, 'shower-beer.db'));
    const took = ((performance.now() - t) / 1000).toFixed(1);
    if (problems.length > 0) {
      console.error(`Verification FAILED (${took} s):\n  ${problems.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`Verified in ${took} s: every counter matches its rows (suspended accounts counting for nobody), no follows across a block, no self-follows, foreign keys hold, no sqlite_stat4.`);
  }
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
