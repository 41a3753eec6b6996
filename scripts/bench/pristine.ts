import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The bench's write rows add comments, likes and follows to the data set they run on, and a set
// is kept from run to run: one benched ten times held 3.6 M comments where the seed makes 1 M
// (739 MB against 655 MB), and --baseline compared it with a set benched three times. Each run
// now starts from the set as the seed left it: a copy taken right after seeding, put back
// before the server starts.

const DB = 'shower-beer.db';
const PRISTINE = 'seeded.db';
const PRISTINE_INFO = 'seeded.json';

/** Whether the set has its untouched copy; without one its history is unknown and it is seeded again. */
export const hasPristineCopy = (dataDir: string) => existsSync(join(dataDir, PRISTINE)) && existsSync(join(dataDir, PRISTINE_INFO));

/**
 * Call with the set's seed.json text before its server starts: right after seeding it keeps a
 * copy of the database, otherwise it puts that copy back (the copy of this very seed).
 */
export function restoreOrKeepPristine(dataDir: string, seedInfoText: string, log: (line: string) => void): void {
  const db = join(dataDir, DB);
  const pristine = join(dataDir, PRISTINE);
  const pristineInfo = join(dataDir, PRISTINE_INFO);
  if (hasPristineCopy(dataDir) && readFileSync(pristineInfo, 'utf8') === seedInfoText) {
    for (const suffix of ['-wal', '-shm']) rmSync(db + suffix, { force: true });
    copyFileSync(pristine, db);
    log(`  ${dataDir}: the database put back as the seed left it`);
    return;
  }
  if (existsSync(db + '-wal')) throw new Error(`${db}-wal exists right after seeding: the seed did not close the database`);
  copyFileSync(db, pristine);
  writeFileSync(pristineInfo, seedInfoText);
  log(`  ${dataDir}: kept a copy of the database as seeded, for the next runs`);
}
