import type Database from 'better-sqlite3';
import { recountAllUnread } from '../../src/social/notifications-repository.js';

/** Every bell equal to what the rows say, recounted in a savepoint that is undone (as notifications.test.ts checks). */
export function bellsAreExact(db: Database.Database): boolean {
  const read = () => JSON.stringify(db.prepare('SELECT id, unread_notifications FROM users ORDER BY id').raw().all());
  const kept = read();
  db.exec('SAVEPOINT recount');
  try {
    recountAllUnread(db);
    return read() === kept;
  } finally {
    db.exec('ROLLBACK TO recount');
    db.exec('RELEASE recount');
  }
}
