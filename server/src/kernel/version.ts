import { readFileSync } from 'node:fs';

/**
 * The app's version: server/package.json's (the root's and web/package.json's are the same;
 * CHANGELOG.md says what each brings). Read from the file beside src/ and dist/ alike, so the
 * image, which copies server/package.json (Dockerfile), reports what it runs.
 */
export const APP_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The version as the database records it (PRAGMA user_version, a 32-bit integer): major,
 * minor and patch in three digits each, 0.4.0 = 4000. 0: a release before 0.4.0, which kept none.
 */
export function versionNumber(version: string): number {
  const m = /^(\d+)\.(\d{1,3})\.(\d{1,3})/.exec(version);
  if (!m) throw new Error(`not a version: ${version}`);
  return Number(m[1]) * 1_000_000 + Number(m[2]) * 1_000 + Number(m[3]);
}

export function versionName(n: number): string {
  if (n <= 0) return 'a release before 0.4.0 (which recorded no version)';
  return `${Math.floor(n / 1_000_000)}.${Math.floor(n / 1_000) % 1_000}.${n % 1_000}`;
}
