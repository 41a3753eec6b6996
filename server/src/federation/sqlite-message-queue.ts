import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import type { MessageQueue, MessageQueueDepth, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';

export interface SqliteMessageQueueOptions {
  /** The clock (ms): tests pass their own to see a delayed message wait without waiting. */
  now?: () => number;
  /** The longest the listener sleeps before looking at the table again (an enqueue in this process wakes it at once). */
  pollMs?: number;
  /** Messages handled at once: a slow remote server holds one of them, not the whole queue. */
  workers?: number;
  /** A handler that threw (Fedify's own handler records and retries its failures itself). */
  onError?: (error: unknown) => void;
  /**
   * Messages not to run (a delivery to a server the operator suspended, plugin.ts): dropped at
   * enqueue, and skipped when claimed if they were queued before the block.
   */
  drops?: (message: unknown) => boolean;
}

/**
 * The message a handler is running, for code Fedify calls from inside it that is not handed the
 * message (its onOutboxError: which delivery and which attempt failed, delivery-failures.ts).
 */
export const runningMessage = new AsyncLocalStorage<unknown>();

interface Claimed {
  id: number;
  message: string;
  orderingKey: string | null;
}

/**
 * Fedify's message queue on our one better-sqlite3 database (table federation_queue, migration 0030).
 *
 * Durable: a message is a committed row from the moment enqueue() returns, and stays until its handler
 * has finished. The listener claims a row (claimed_at) before running it; a process that stops
 * mid-message (a crash, SIGKILL) leaves the claim, and the next listen() on the database releases
 * every claim first, so the message runs again after the restart: at least once, never lost. One
 * process listens per database (the server is one process), which is what makes releasing safe.
 *
 * Delays: a row's run_at is the enqueue time plus the delay; the listener sleeps until the earliest
 * run_at (at most pollMs). Fedify retries a failed delivery by enqueueing it again with a delay
 * (nativeRetrial false), so a handler's failure is logged and its row removed.
 *
 * Ordering keys: messages with one key run one at a time (the running keys are excluded from the claim).
 */
export function createSqliteMessageQueue(sqlite: Database.Database, options: SqliteMessageQueueOptions = {}): MessageQueue {
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 5_000;
  const workers = options.workers ?? 4;
  const onError = options.onError ?? (() => {});
  const drops = options.drops ?? (() => false);

  const insert = sqlite.prepare<[string, string | null, number, number]>(
    'INSERT INTO federation_queue (message, ordering_key, run_at, created_at) VALUES (?, ?, ?, ?)',
  );
  const claim = sqlite.prepare<{ now: number; busy: string }, Claimed>(`
    UPDATE federation_queue SET claimed_at = @now WHERE id = (
      SELECT id FROM federation_queue
      WHERE claimed_at IS NULL AND run_at <= @now
        AND (ordering_key IS NULL OR ordering_key NOT IN (SELECT value FROM json_each(@busy)))
      ORDER BY run_at, id LIMIT 1)
    RETURNING id, message, ordering_key AS orderingKey`);
  const finish = sqlite.prepare<[number]>('DELETE FROM federation_queue WHERE id = ?');
  const releaseClaims = sqlite.prepare('UPDATE federation_queue SET claimed_at = NULL WHERE claimed_at IS NOT NULL');
  const nextRunAt = sqlite.prepare<[], number | null>('SELECT MIN(run_at) FROM federation_queue WHERE claimed_at IS NULL').pluck();
  const depth = sqlite.prepare<[number], { queued: number; ready: number }>(
    'SELECT COUNT(*) AS queued, COALESCE(SUM(run_at <= ?), 0) AS ready FROM federation_queue WHERE claimed_at IS NULL',
  );

  /** Wakes the listener of this queue (an enqueue, a handler done). */
  let wake: () => void = () => {};
  let listening = false;

  const delayMs = (opts?: MessageQueueEnqueueOptions) => {
    const ms = opts?.delay ? opts.delay.total('millisecond') : 0;
    if (!(ms >= 0)) throw new RangeError('a message queue delay must not be negative');
    return ms;
  };
  const insertMany = sqlite.transaction((messages: readonly unknown[], key: string | null, runAt: number, at: number) => {
    for (const message of messages) insert.run(JSON.stringify(message), key, runAt, at);
  });

  return {
    nativeRetrial: false,
    async enqueue(message, opts) {
      if (drops(message)) return;
      const at = now();
      insert.run(JSON.stringify(message), opts?.orderingKey ?? null, at + delayMs(opts), at);
      wake();
    },
    async enqueueMany(messages, opts) {
      const at = now();
      insertMany.immediate(messages.filter((m) => !drops(m)), opts?.orderingKey ?? null, at + delayMs(opts), at);
      wake();
    },
    async getDepth(): Promise<MessageQueueDepth> {
      const { queued, ready } = depth.get(now())!;
      return { queued, ready, delayed: queued - ready };
    },
    async listen(handler: (message: unknown) => Promise<void> | void, opts?: MessageQueueListenOptions) {
      if (listening) throw new Error('this queue already has a listener: one per database');
      listening = true;
      const signal = opts?.signal;
      const busyKeys = new Set<string>();
      let running = 0;
      let sleeping: (() => void) | null = null;
      wake = () => sleeping?.();
      const onAbort = () => wake();
      signal?.addEventListener('abort', onAbort);
      // Claims left by a process that stopped before finishing them (see above).
      releaseClaims.run();

      const run = async (row: Claimed) => {
        try {
          const message: unknown = JSON.parse(row.message);
          // Queued before a block that now applies: not sent.
          if (!drops(message)) await runningMessage.run(message, () => handler(message));
        } catch (error) {
          onError(error);
        } finally {
          if (sqlite.open) finish.run(row.id);
          if (row.orderingKey !== null) busyKeys.delete(row.orderingKey);
          running--;
          wake();
        }
      };

      try {
        while (!signal?.aborted) {
          while (running < workers && !signal?.aborted && sqlite.open) {
            const row = claim.get({ now: now(), busy: JSON.stringify([...busyKeys]) });
            if (!row) break;
            if (row.orderingKey !== null) busyKeys.add(row.orderingKey);
            running++;
            void run(row);
          }
          if (signal?.aborted || !sqlite.open) break;
          const next = nextRunAt.get() ?? null;
          const at = now();
          const waitMs = next !== null && next > at ? Math.min(pollMs, next - at) : pollMs;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(done, waitMs);
            function done() {
              clearTimeout(timer);
              sleeping = null;
              resolve();
            }
            sleeping = done;
          });
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
        wake = () => {};
        listening = false;
      }
    },
  };
}
