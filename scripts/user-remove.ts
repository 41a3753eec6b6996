/**
 * Removes an account for the operator, as its owner can from the account page:
 *   npm run user:remove -- <username>
 * Its posts, comments, likes, follows and images go at once, counters stay
 * exact, and its tokens stop working. Reads DATA_DIR (and the rest of the
 * configuration) from the environment like the server does; safe while the
 * server runs (one transaction; the server's caches follow the database).
 */
import { ConfigError, loadConfig } from '../server/src/kernel/config.js';
import { openDatabase } from '../server/src/kernel/db/client.js';
import { createStandaloneAccountRemoval } from '../server/src/person-steps.js';
import { createStorage } from '../server/src/kernel/storage/index.js';

const USAGE = 'Usage: npm run user:remove -- <username>';

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const [username] = args;
  if (args.length !== 1 || username === undefined || username.trim() === '') {
    console.error(`Expected 1 argument, got ${args.length}.\n${USAGE}`);
    return 1;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      return 1;
    }
    throw err;
  }
  const database = openDatabase(config.databaseFile, config.migrationsDir);
  try {
    const user = database.sqlite
      .prepare<[string], { id: number; username: string }>('SELECT id, username FROM users WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL')
      .get(username.trim());
    if (!user) {
      console.error(`There is no user named "${username.trim()}".`);
      return 1;
    }
    const storage = await createStorage(config);
    const removal = createStandaloneAccountRemoval({ sqlite: database.sqlite, storage, log: { warn: (o: object, msg?: string) => console.warn(msg, o) } });
    const removed = await removal.remove(user.id);
    if (!removed) {
      console.error(`"${user.username}" was removed meanwhile.`);
      return 1;
    }
    console.log(`Removed "${user.username}": ${removed.posts} post(s) and ${removed.files} stored file(s).`);
    return 0;
  } finally {
    database.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
