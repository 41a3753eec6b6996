import type Database from 'better-sqlite3';
import { createCounters, type Counters } from './counters.js';
import { createLiveUserCheck, type LiveUserCheck } from './live-user.js';

/**
 * What every repository that writes shares: the one writer of each counter column and the
 * check that the person acting still exists and is not suspended. Built once per database by
 * the kernel plugin (kernel/plugin.ts) and handed to each repository that needs them.
 */
export interface Shared {
  counters: Counters;
  live: LiveUserCheck;
}

export const createShared = (sqlite: Database.Database): Shared => ({ counters: createCounters(sqlite), live: createLiveUserCheck(sqlite) });
