// `npm start`: builds what is missing or out of date (the web bundle, the
// compiled server), then runs the server. Plain JS so it needs no build itself.
// First, before anything that needs a newer Node: a clear message on an old one.
import './check-node.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Newest modification time of any file under these paths (0 if none). */
function newest(paths) {
  let latest = 0;
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const entry of readdirSync(p)) if (entry !== 'node_modules' && entry !== 'dist') walk(join(p, entry));
    } else latest = Math.max(latest, st.mtimeMs);
  };
  paths.forEach(walk);
  return latest;
}

function buildIfStale(name, output, inputs, workspace) {
  const out = join(root, output);
  const stale = !existsSync(out) || statSync(out).mtimeMs < newest(inputs.map((p) => join(root, p)));
  if (!stale) return;
  console.log(`Building the ${name}…`);
  const res = spawnSync('npm', ['run', 'build', '-w', workspace], { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) {
    console.error(`Building the ${name} failed.`);
    process.exit(res.status ?? 1);
  }
}

buildIfStale('web app', 'web/dist/index.html', ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/package.json'], 'web');
buildIfStale('server', 'server/dist/server.js', ['server/src', 'server/tsconfig.build.json', 'server/package.json'], 'server');

await import(pathToFileURL(join(root, 'server', 'dist', 'server.js')).href);
