// `npm run bench:migrations -- [--from REF] [--tree DIR] [--data-dir DIR] [--scale reference|small] [--reseed]`
//
// How long each of today's migrations holds the server at start (migrations run before it
// listens: server/src/kernel/db/client.ts), and how much memory it takes, on the reference data set:
//   1. the oldest release (default 5b8735c, 0.1.0) seeds the set with its own seed script, in its
//      own worktree (scripts/release-tree.ts), kept as seeded.db and reused by the next run;
//   2. a copy of it is migrated with today's migrations one at a time, each in a fresh process
//      that opens it as the server does (openDatabase: the same pragmas), timed, with its peak RSS;
//   3. a table: migration, seconds, peak RSS, the database's size after. Recorded by hand in
//      docs/self-hosting.md ("Upgrade"); bench.ts rewrites docs/performance.md, so not there.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { readJournal } from '../server/src/kernel/db/client.js';
import { releaseTree, repo, run } from './release-tree.js';

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: '5b8735c' },
    tree: { type: 'string' },
    'data-dir': { type: 'string' },
    scale: { type: 'string', default: 'reference' },
    reseed: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`Usage: npm run bench:migrations -- [options]
  --from REF        the release whose seed makes the set (default 5b8735c, the oldest)
  --tree DIR        a checkout of REF with its dependencies installed (default: a temporary worktree)
  --data-dir DIR    where the seeded set is kept between runs (default: $TMPDIR/shower-beer-migrations-<commit>-<scale>)
  --scale S         reference (1M posts, the default) or small (10 000 posts, a quick check)
  --reseed          seed again even if the set is there`);
  process.exit(0);
}
if (values.scale !== 'reference' && values.scale !== 'small') {
  console.error('--scale must be reference or small');
  process.exit(2);
}

const say = (line: string) => console.log(`[bench:migrations] ${line}`);
const migrationsDir = join(repo, 'migrations');
const journal = readJournal(migrationsDir);

const tree = releaseTree(values.from, { dir: values.tree, keep: true, say });
const dataDir = resolve(values['data-dir'] ?? join(tmpdir(), `shower-beer-migrations-${tree.commit}-${values.scale}`));
const seeded = join(dataDir, 'seeded.db');
if (values.reseed || !existsSync(seeded)) {
  const seedDir = join(dataDir, 'seed');
  const started = Date.now();
  run('npx', ['tsx', 'scripts/seed.ts', '--scale', values.scale, '--data-dir', seedDir, '--force'], tree.dir, {}, say);
  say(`seeded with ${tree.commit}'s own seed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  copyFileSync(join(seedDir, 'shower-beer.db'), seeded);
  rmSync(seedDir, { recursive: true, force: true });
}

const work = mkdtempSync(join(tmpdir(), 'shower-beer-migrating-'));
const db = join(work, 'shower-beer.db');
copyFileSync(seeded, db);
const counts = (() => {
  const d = new Database(db, { readonly: true });
  try {
    const n = (table: string) => (d.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { posts: n('posts'), likes: n('likes'), comments: n('comments'), follows: n('follows'), users: n('users') };
  } finally {
    d.close();
  }
})();
const applied = (() => {
  const d = new Database(db, { readonly: true });
  try {
    return new Set((d.prepare('SELECT created_at AS c FROM __drizzle_migrations').all() as Array<{ c: number }>).map((r) => Number(r.c)));
  } finally {
    d.close();
  }
})();
const mib = (bytes: number) => bytes / 1024 / 1024;
say(
  `${values.scale} set from ${tree.commit}: ${counts.users} users, ${counts.posts} posts, ${counts.likes} likes, ${counts.comments} comments, ` +
    `${counts.follows} follows; ${mib(statSync(db).size).toFixed(0)} MiB; ${applied.size} migrations already applied`,
);

// The child: opens the database exactly as the server does, so the pragmas (cache size, temp
// store) are the server's; prints the time and its memory before and at the peak.
const child = join(work, 'migrate-one.mts');
writeFileSync(
  child,
  `import { openDatabase } from ${JSON.stringify(join(repo, 'server', 'src', 'kernel', 'db', 'client.ts'))};
const before = process.memoryUsage().rss;
const cpu = process.cpuUsage();
const started = performance.now();
const handle = openDatabase(process.argv[2], process.argv[3]);
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
handle.close();
console.log(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, rssBefore: before, maxRss: process.resourceUsage().maxRSS * 1024, applied: handle.applied }));
`,
);

interface Step {
  tag: string;
  seconds: number;
  cpuSeconds: number;
  peakMiB: number;
  aboveStartMiB: number;
  dbMiB: number;
}
const steps: Step[] = [];
// On a shared machine Time is inflated by waiting for the CPU and the disk: the load says how much.
const loadAtStart = loadavg()[0]!;
try {
  for (let i = 0; i < journal.length; i++) {
    const entry = journal[i]!;
    if (applied.has(entry.when)) continue;
    // A migrations folder that ends at this one: drizzle applies exactly it.
    const folder = join(work, `upto-${entry.idx}`);
    mkdirSync(join(folder, 'meta'), { recursive: true });
    const journalFile = JSON.parse(readFileSync(join(migrationsDir, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
    writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journalFile, entries: journalFile.entries.slice(0, i + 1) }));
    for (const e of journal.slice(0, i + 1)) copyFileSync(join(migrationsDir, `${e.tag}.sql`), join(folder, `${e.tag}.sql`));
    const out = execFileSync(process.execPath, ['--import', 'tsx', child, db, folder], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const r = JSON.parse(out.trim().split('\n').at(-1)!) as { ms: number; cpuMs: number; rssBefore: number; maxRss: number; applied: string[] };
    if (r.applied.length !== 1 || r.applied[0] !== entry.tag) throw new Error(`expected to apply ${entry.tag}, applied ${JSON.stringify(r.applied)}`);
    const step = {
      tag: entry.tag,
      seconds: r.ms / 1000,
      cpuSeconds: r.cpuMs / 1000,
      peakMiB: mib(r.maxRss),
      aboveStartMiB: mib(r.maxRss - r.rssBefore),
      dbMiB: mib(statSync(db).size),
    };
    steps.push(step);
    say(`${step.tag}: ${step.seconds.toFixed(2)} s (CPU ${step.cpuSeconds.toFixed(2)} s), peak RSS ${step.peakMiB.toFixed(0)} MiB (+${step.aboveStartMiB.toFixed(0)}), database ${step.dbMiB.toFixed(0)} MiB`);
    rmSync(folder, { recursive: true, force: true });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const total = steps.reduce((s, x) => s + x.seconds, 0);
const totalCpu = steps.reduce((s, x) => s + x.cpuSeconds, 0);
const worst = steps.reduce<Step | null>((w, x) => (w === null || x.seconds > w.seconds ? x : w), null);
console.log('');
console.log(`| Migration | Time (s) | CPU (s) | Peak RSS (MiB) | Above the process at start (MiB) | Database after (MiB) |`);
console.log(`|---|---:|---:|---:|---:|---:|`);
for (const s of steps) console.log(`| ${s.tag} | ${s.seconds.toFixed(2)} | ${s.cpuSeconds.toFixed(2)} | ${s.peakMiB.toFixed(0)} | ${s.aboveStartMiB.toFixed(0)} | ${s.dbMiB.toFixed(0)} |`);
console.log('');
console.log(
  `${steps.length} migrations in ${total.toFixed(1)} s, ${totalCpu.toFixed(1)} s CPU (the start of a server upgraded from ${tree.commit} in one step); ` +
    `the longest ${worst?.tag ?? '-'} ${worst?.seconds.toFixed(1) ?? '-'} s. Limit: 60 s each. ` +
    `Load average (1 min): ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
);
const over = steps.filter((s) => s.seconds > 60);
if (over.length > 0) {
  console.error(`Over 60 s: ${over.map((s) => s.tag).join(', ')}`);
  process.exitCode = 1;
}
