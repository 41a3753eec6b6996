// `npx tsx scripts/pages-during-build.ts [base URL]`: with a server already running (default
// http://localhost:3000), runs `npm run build -w web` and asks for the app's pages all through it
// (again until at least 200 requests were made while one ran), then says how many answered what. Any 5xx
// fails it: while dist/ is emptied and rewritten, pages must keep answering with the last good
// build (server/src/web/plugin.ts).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const base = (process.argv[2] ?? 'http://localhost:3000').replace(/\/+$/, '');
const PATHS = ['/', '/app', '/app/discover', '/app/follow-feed', '/app/create-post', '/app/search-profile', '/app/profile/alice', '/app/account', '/app/no-such-screen'];
const AT_LEAST = 200;

const root = fileURLToPath(new URL('..', import.meta.url));
const statuses = new Map<string, number>();
const failures: string[] = [];
let sent = 0;
let builds = 0;

/** One page request, counted. */
async function ask(path: string) {
  let status: string;
  try {
    const res = await fetch(`${base}${path}`, { headers: { 'accept-encoding': sent % 2 ? 'br' : 'identity' } });
    await res.arrayBuffer();
    status = String(res.status);
    if (res.status >= 500) failures.push(`${path}: ${res.status}`);
  } catch (err) {
    status = 'network error';
    failures.push(`${path}: ${(err as Error).message}`);
  }
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

// Builds again until at least AT_LEAST requests were made while one ran; two requests at a time.
while (sent < AT_LEAST) {
  builds += 1;
  const build = spawn('npm', ['run', 'build', '-w', 'web'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  let building = true;
  const built = new Promise<number | null>((resolve) => build.on('exit', (code) => ((building = false), resolve(code))));
  const asking = async () => {
    while (building) {
      const path = PATHS[sent % PATHS.length]!;
      sent += 1;
      await ask(path);
    }
  };
  await Promise.all([asking(), asking()]);
  const code = await built;
  if (code !== 0) {
    console.log(`npm run build -w web failed (${code})`);
    process.exit(1);
  }
}

console.log(`${sent} page requests, all while \`npm run build -w web\` ran (${builds} build${builds > 1 ? 's' : ''}):`);
for (const [status, count] of [...statuses].sort()) console.log(`  ${status}: ${count}`);
if (failures.length) {
  console.log(`${failures.length} failed:\n  ${failures.slice(0, 20).join('\n  ')}`);
  process.exit(1);
}
console.log('no 5xx, no network error');
