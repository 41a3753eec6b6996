/**
 * Creates an account of the embedded identity provider from the command line:
 *   npm run user:add -- <username> <email> <password>
 * Same rules and hashing as the sign-up page. DATA_DIR (and the rest of the
 * configuration) is read from the environment like the server does.
 */
import { ConfigError, loadConfig } from '../server/src/kernel/config.js';
import { openDatabase } from '../server/src/kernel/db/client.js';
import { createUsersRepository } from '../server/src/people/users-repository.js';
import { createAccountsService } from '../server/src/idp/accounts-service.js';

const USAGE = 'Usage: npm run user:add -- <username> <email> <password>';

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const [username, email, password] = args;
  if (args.length !== 3 || username === undefined || email === undefined || password === undefined) {
    console.error(`Expected 3 arguments, got ${args.length}.\n${USAGE}`);
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
  if (config.auth.provider !== 'embedded') {
    console.warn('Note: AUTH_PROVIDER is not "embedded", so the server will not use this account until it is.');
  }
  const database = openDatabase(config.databaseFile, config.migrationsDir);
  try {
    const result = await createAccountsService(database.sqlite).signUp({ username, email, password });
    if (!result.ok) {
      console.error('Could not create the account:');
      for (const message of Object.values(result.errors)) console.error(`  - ${message}`);
      return 1;
    }
    const { account } = result;
    // The API knows the person right away (searchable before the first sign-in).
    createUsersRepository(database.sqlite).upsertFromClaims(account.id, account.username, account.email);
    console.log(`Created account "${account.username}" <${account.email}> in ${config.databaseFile}.`);
    return 0;
  } finally {
    database.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
