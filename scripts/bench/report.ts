import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface Row {
  name: string;
  rps?: number;
  p50?: number;
  p99?: number;
  /** Server CPU per request, µs (user + system of the server process). */
  cpuUs?: number;
  bad?: number;
  note?: string;
}

export interface Target {
  name: string;
  measured: string;
  verdict: 'PASS' | 'FAIL' | 'N/A';
}

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function rowsTable(rows: Row[]): string {
  const lines = [
    '| Case | req/s | p50 ms | p99 ms | server CPU µs/req | non-2xx+errors | Notes |',
    '|---|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, r.p50 !== undefined && r.p50 < 10 ? 2 : 0)} | ${fmt(r.p99, r.p99 !== undefined && r.p99 < 10 ? 2 : 0)} | ${fmt(r.cpuUs)} | ${r.bad === undefined ? '–' : r.bad} | ${r.note ?? ''} |`,
    );
  }
  return lines.join('\n');
}

export function targetsTable(targets: Target[]): string {
  const lines = ['| Target | Measured | Verdict |', '|---|---|---|'];
  for (const t of targets) lines.push(`| ${t.name} | ${t.measured} | **${t.verdict}** |`);
  return lines.join('\n');
}

const SKELETON = `# Performance

Measured by \`npm run bench\` (scripts/bench.ts) on a DATA_DIR filled by \`npm run seed\`
(scripts/seed.ts). \`npm run bench -- --scale small\` is a check of a few minutes;
\`npm run bench -- --scale reference\` measures the reference community (100 000 users,
1 000 000 posts, 5 000 000 likes, 1 000 000 comments, 1 000 000 follows) and a 10 000-post
one for the growth ratio. The sections between the \`bench:\` markers are rewritten by the bench;
the rest of this page is kept.

## How the bench measures

- The real server runs as its own process (\`node --import tsx server/src/server.ts\`: the
  current source, no stale build; tsx compiles each module once at load, so the code that runs
  per request is the same JavaScript tsc would emit). \`--server built\` runs server/dist instead.
  Logging is at \`warn\` (\`--log-level info\` measures the cost of per-request logs), and the
  per-user write rate limit is raised so one bench user can write thousands per second.
- Load comes from autocannon in the bench process; the machine has 2 cores, so the load
  generator and the server share them, as they do for the HTTP ceiling below.
- Every authenticated case uses one signed-in user (\`bench_reader\`, following 200 people) with one
  token minted from the signing key in DATA_DIR/keys, as a real client keeps its token.
- Baselines in the same run: a bare Fastify route answering a constant 20-post page copied from
  the real Discover answer (the HTTP ceiling), and the feed's SQL run directly on better-sqlite3
  (the database floor).
- Server CPU per request comes from /proc/<pid>/stat; memory of create-post from VmRSS/VmHWM
  sampled every 5 ms during the request.

`;

/** Replaces (or appends) the block between `<!-- bench:<id>:start -->` and its end marker. */
export function writeDoc(file: string, id: string, body: string) {
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : SKELETON;
  const start = `<!-- bench:${id}:start -->`;
  const end = `<!-- bench:${id}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  let next: string;
  if (i >= 0 && j > i) next = doc.slice(0, i) + block + doc.slice(j + end.length);
  else {
    // The current figures are the first thing a reader sees, and the run history stays at the
    // end: a new block goes after the other scale's block, or else before the first section.
    const anchor = afterLastBlock(doc) ?? firstSection(doc);
    next = anchor >= 0 ? `${doc.slice(0, anchor)}${block}\n\n${doc.slice(anchor)}` : `${doc.trimEnd()}\n\n${block}\n`;
  }
  writeFileSync(file, next);
}

/** Where the text after the last `<!-- bench:…:end -->` marker (and its blank line) starts, if there is one. */
function afterLastBlock(doc: string): number | undefined {
  const ends = [...doc.matchAll(/<!-- bench:[\w-]+:end -->\n*/g)];
  const last = ends.at(-1);
  return last === undefined ? undefined : last.index + last[0].length;
}

const firstSection = (doc: string) => doc.search(/^## /m);
