// Generates a SQL migration from server/src/kernel/db/schema.ts into migrations/.
// drizzle-orm lives in server/node_modules (its optional peers keep npm from
// hoisting it), while drizzle-kit is hoisted to the root and imports
// drizzle-orm from there: link it for the run, then remove the link.
import { spawnSync } from 'node:child_process';
import { existsSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const link = join(root, 'node_modules', 'drizzle-orm');
const made = !existsSync(link);
if (made) symlinkSync(join(root, 'server', 'node_modules', 'drizzle-orm'), link, 'dir');
try {
  const res = spawnSync('npx', ['drizzle-kit', 'generate', ...process.argv.slice(2)], {
    cwd: join(root, 'server'),
    stdio: 'inherit',
  });
  process.exitCode = res.status ?? 1;
} finally {
  if (made) unlinkSync(link);
}
