import type Database from 'better-sqlite3';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';

/**
 * The operator's federation switch (instance_settings.federation_enabled, migration 0036), read once
 * at start and written when they switch it (plugin.ts), with its line in the moderation log in the
 * same transaction.
 */
export function createFederationSettings(sqlite: Database.Database) {
  const read = sqlite.prepare<[], number>('SELECT federation_enabled FROM instance_settings WHERE id = 1').pluck();
  const write = sqlite.prepare<[number, number]>('UPDATE instance_settings SET federation_enabled = ?, updated_at = ? WHERE id = 1');
  const log = createModerationLog(sqlite);
  const set = sqlite.transaction((enabled: boolean, op: Operator) => {
    write.run(enabled ? 1 : 0, Date.now());
    log(op, 'change_federation', enabled ? 'on' : 'off', null, '');
  });
  return {
    get: (): boolean => read.get() === 1,
    set: (enabled: boolean, op: Operator): void => set.immediate(enabled, op),
  };
}
