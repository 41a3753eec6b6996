// Stops `npm start` and `npm test` early, with what to do, on a Node.js older than package.json's
// `engines` asks (the image runs Node 22: Dockerfile; .node-version names the exact version CI runs).
// Plain JS with no imports beyond Node's own, so it runs on any Node.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const wanted = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node;
const floor = /^>=\s*(\d+)(?:\.(\d+))?/.exec(wanted);
if (!floor) throw new Error(`scripts/check-node.mjs reads only ">=X.Y" engines, not "${wanted}"`);
const [major, minor] = process.versions.node.split('.').map(Number);
const need = [Number(floor[1]), Number(floor[2] ?? 0)];
if (major < need[0] || (major === need[0] && minor < need[1])) {
  const exact = readFileSync(join(root, '.node-version'), 'utf8').trim();
  console.error(
    [
      `Shower Beer needs Node.js ${wanted.replace(/^>=\s*/, '')} or newer; this is ${process.version}.`,
      `In this shell, \`. scripts/use-node.sh\` fetches Node.js ${exact} from the npm registry (once, into ~/.cache)`,
      `and puts it first on PATH (or \`fnm use\`, or \`nvm install ${exact}\`). Then \`npm ci\` again, as`,
      'node_modules built for another Node will not load (better-sqlite3 is compiled for it).',
    ].join('\n'),
  );
  process.exit(1);
}
