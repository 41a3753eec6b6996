// `npm run dev`: the server restarts on changes (tsx watch) and the web bundle
// rebuilds on changes (vite build --watch), served by the same server so the
// Content-Security-Policy and the sign-in redirects are the real ones.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const children = [
  spawn('npx', ['vite', 'build', '--watch', '--mode', 'development'], { cwd: join(root, 'web'), stdio: 'inherit' }),
  spawn('npx', ['tsx', 'watch', 'server/src/server.ts'], { cwd: root, stdio: 'inherit' }),
];
const stop = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
children.forEach((c) => c.on('exit', (code) => { stop(); process.exitCode = code ?? 0; }));
