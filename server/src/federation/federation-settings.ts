import type Database from 'better-sqlite3';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';

/**
 * The operator's federation switch (instance_settings.federation_enabled, migration 0036), read once
 * at start and written when they switch it (plugin.ts), with its line in the moderation log in the
 * same transaction. Authorized fetch (federation_authorized_fetch, migration 0039) likewise, kept
 * in memory: every fetch of an object asks it (fetch-access.ts).
 */
export function createFederationSettings(sqlite: Database.Database) {
  const read = sqlite.prepare<[], number>('SELECT federation_enabled FROM instance_settings WHERE id = 1').pluck();
  const write = sqlite.prepare<[number, number]>('UPDATE instance_settings SET federation_enabled = ?, updated_at = ? WHERE id = 1');
  const log = createModerationLog(sqlite);
  const set = sqlite.transaction((enabled: boolean, op: Operator) => {
    write.run(enabled ? 1 : 0, Date.now());
    log(op, 'change_federation', enabled ? 'on' : 'off', null, '');
  });
  const readStrict = sqlite.prepare<[], number>('SELECT federation_authorized_fetch FROM instance_settings WHERE id = 1').pluck();
  const writeStrict = sqlite.prepare<[number, number]>('UPDATE instance_settings SET federation_authorized_fetch = ?, updated_at = ? WHERE id = 1');
  const setStrict = sqlite.transaction((on: boolean, op: Operator) => {
    writeStrict.run(on ? 1 : 0, Date.now());
    log(op, 'change_federation', on ? 'authorized fetch on' : 'authorized fetch off', null, '');
  });
  let strict: boolean | null = null;
  return {
    get: (): boolean => read.get() === 1,
    set: (enabled: boolean, op: Operator): void => set.immediate(enabled, op),
    authorizedFetch: (): boolean => (strict ??= readStrict.get() === 1),
    setAuthorizedFetch(on: boolean, op: Operator): void {
      setStrict.immediate(on, op);
      strict = on;
    },
  };
}
