// An earlier commit's own tree, dependencies and server build, in a temporary `git worktree`
// (scripts/release-fixture.ts, scripts/bench-migrations.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, say = console.log) {
  say(`${relative(repo, cwd) || '.'}$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
}

/** The same lockfile but for the app's own version (root and workspaces): the same node_modules. */
function sameDependencies(a: string, b: string): boolean {
  const norm = (file: string) => {
    const lock = JSON.parse(readFileSync(file, 'utf8')) as { version?: string; packages: Record<string, { version?: string }> };
    delete lock.version;
    for (const key of ['', 'server', 'web']) delete lock.packages[key]?.version;
    return JSON.stringify(lock);
  };
  return norm(a) === norm(b);
}

/** The same better-sqlite3 (the only dependency that compiles on install) in both lockfiles. */
function sameNative(a: string, b: string): boolean {
  const version = (file: string) =>
    (JSON.parse(readFileSync(file, 'utf8')) as { packages: Record<string, { version?: string }> }).packages['node_modules/better-sqlite3']?.version;
  return version(a) !== undefined && version(a) === version(b) && existsSync(join(repo, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
}

export interface ReleaseTree {
  commit: string;
  dir: string;
  /** Removes the worktree (not when it was given). */
  done(): void;
}

/**
 * `dir` given: that checkout, kept. Otherwise a worktree of `ref` under the temp folder, removed by
 * done() unless `keep`. Its own `npm ci`, or a copy of this tree's node_modules when the lockfiles
 * differ only in the app's version (said in the log), and its own server build.
 */
export function releaseTree(ref: string, opts: { dir?: string; keep?: boolean; say?: (line: string) => void } = {}): ReleaseTree {
  const say = opts.say ?? console.log;
  const commit = git('rev-parse', '--short=7', `${ref}^{commit}`);
  const dir = resolve(opts.dir ?? join(tmpdir(), `shower-beer-release-${commit}`));
  const own = !opts.dir;
  if (own && !existsSync(join(dir, 'package.json'))) {
    git('worktree', 'prune');
    git('worktree', 'add', '--detach', '--force', dir, commit);
  }
  if (!existsSync(join(dir, 'node_modules', '.package-lock.json'))) {
    if (sameDependencies(join(dir, 'package-lock.json'), join(repo, 'package-lock.json'))) {
      say("its package-lock.json is this tree's (but for the app's version): copying node_modules instead of npm ci");
      for (const sub of ['node_modules', 'server/node_modules', 'web/node_modules']) {
        if (existsSync(join(repo, sub))) cpSync(join(repo, sub), join(dir, sub), { recursive: true, verbatimSymlinks: true });
      }
    } else if (sameNative(join(dir, 'package-lock.json'), join(repo, 'package-lock.json'))) {
      // Its own lockfile, but the one native addon (better-sqlite3, about a minute of compiling)
      // is the version this tree built already: its install scripts skipped, our build copied in.
      say("npm ci --ignore-scripts, then this tree's build of the same better-sqlite3");
      run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], dir, {}, say);
      cpSync(join(repo, 'node_modules', 'better-sqlite3', 'build'), join(dir, 'node_modules', 'better-sqlite3', 'build'), { recursive: true });
    } else {
      run('npm', ['ci', '--no-audit', '--no-fund'], dir, {}, say);
    }
  }
  if (!existsSync(join(dir, 'server', 'dist', 'server.js'))) run('npm', ['run', 'build', '-w', 'server'], dir, {}, say);
  return {
    commit,
    dir,
    done() {
      if (!own || opts.keep) return;
      git('worktree', 'remove', '--force', dir);
      say(`removed the worktree ${dir}`);
    },
  };
}
