import type Database from 'better-sqlite3';
import { runningMessage } from './sqlite-message-queue.js';

/**
 * How a delivery to another server is retried (issue 49, item 7: "retries back off over days, then
 * give up on a dead server"). Fedify's default gives up after 10 attempts, about 8.5 minutes in: a
 * home server whose peer is down for an evening would lose what it sent. Here the waits double from
 * 30 s up to 12 h, each stretched by up to 100% at random (jitter spreads a dead server's retries);
 * the 16th attempt is the last, 2.7 to 3.2 days after the first (Mastodon's delivery worker also
 * retries for about 3 days). Fedify's circuit breaker may also hold a dead server's deliveries, for
 * at most 7 days, before dropping them (recorded as given up too).
 */
export const OUTBOX_RETRY = { initialDelayMs: 30_000, factor: 2, maxDelayMs: 12 * 3_600_000, maxAttempts: 16 } as const;

/**
 * The wait before retry number `attempts + 1`, or null to give up; `random` in [0, 1) adds up to
 * 100% jitter. `initialDelayMs` is FEDERATION_RETRY_FIRST_DELAY_MS (kernel/config.ts).
 */
export function outboxRetryDelayMs(attempts: number, random: () => number = Math.random, initialDelayMs: number = OUTBOX_RETRY.initialDelayMs): number | null {
  if (attempts >= OUTBOX_RETRY.maxAttempts - 1) return null;
  const base = Math.min(initialDelayMs * OUTBOX_RETRY.factor ** attempts, OUTBOX_RETRY.maxDelayMs);
  return Math.min(Math.round(base * (1 + random())), OUTBOX_RETRY.maxDelayMs);
}

/** Failed attempts kept for the operator page: the newest this many, none older than the retention. */
const FAILURE_ROWS_KEPT = 500;
const FAILURE_RETENTION_MS = 30 * 24 * 3_600_000;
/** The error text kept: enough to tell a timeout from a refusal, never a response body. */
const ERROR_CHARS = 200;

/** One queued delivery, as Fedify enqueues it (only the fields read here). */
interface OutboxMessage {
  type: 'outbox';
  inbox: string;
  activityType: string;
  attempt: number;
}

/**
 * The inbox's answer, when it answered: Fedify's SendActivityError carries it (read by shape, so that
 * this file, loaded while federation is off, does not load Fedify).
 */
const statusOf = (error: unknown): number | null => {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && Number.isInteger(status) ? status : null;
};

const isOutboxMessage = (m: unknown): m is OutboxMessage =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'outbox' && typeof (m as { inbox?: unknown }).inbox === 'string';

/** "https://www.w3.org/ns/activitystreams#Create" → "Create". */
const shortType = (type: string) => type.slice(type.lastIndexOf('#') + 1).slice(0, 40);

export interface QueueByServer {
  host: string;
  /** Deliveries waiting for this server. */
  waiting: number;
  /** Of them, those that failed at least once and wait for a retry. */
  retrying: number;
  nextAttemptAt: number;
}

export interface FailureRow {
  host: string;
  activityType: string;
  status: number | null;
  error: string;
  attempt: number;
  gaveUp: number;
  createdAt: number;
}

/**
 * The delivery queue as the operator page shows it (issue 49, item 6: "the delivery queue and its
 * failures"): what waits, per server, read from Fedify's queued messages (federation_queue), and
 * the attempts that failed (federation_delivery_failures). Only host names, activity types and
 * errors: a queued message also holds the activity and its signing keys, which never leave here.
 */
export function createDeliveryFailures(sqlite: Database.Database, now: () => number = Date.now) {
  const insert = sqlite.prepare<[string, string, string, number | null, string, number, number, number]>(`
    INSERT INTO federation_delivery_failures (host, inbox, activity_type, status, error, attempt, gave_up, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const prune = sqlite.prepare<[number, number]>(`
    DELETE FROM federation_delivery_failures
    WHERE created_at < ? OR id <= (SELECT id FROM federation_delivery_failures ORDER BY id DESC LIMIT 1 OFFSET ?)`);
  const recent = sqlite.prepare<[number], FailureRow>(`
    SELECT host, activity_type AS activityType, status, error, attempt, gave_up AS gaveUp, created_at AS createdAt
    FROM federation_delivery_failures ORDER BY id DESC LIMIT ?`);
  const gaveUpCount = sqlite.prepare<[number], number>('SELECT count(*) FROM federation_delivery_failures WHERE gave_up = 1 AND created_at >= ?').pluck();
  // The inbox's host from each queued delivery's JSON; "fanout" messages (one activity for many
  // inboxes, before Fedify splits it) count under their own name.
  const byServer = sqlite.prepare<[], { inbox: string | null; attempt: number | null; runAt: number }>(`
    SELECT json_extract(message, '$.inbox') AS inbox, json_extract(message, '$.attempt') AS attempt, run_at AS runAt
    FROM federation_queue`);
  const write = sqlite.transaction((row: Parameters<typeof insert.run>) => {
    insert.run(...row);
    prune.run(row[7] - FAILURE_RETENTION_MS, FAILURE_ROWS_KEPT);
  });

  return {
    /**
     * Fedify's onOutboxError and its permanent-failure handler: one failed attempt of the delivery
     * the queue is running (sqlite-message-queue.ts, runningMessage). Whether it was the last is
     * the same rule Fedify applies after this call (outboxRetryDelayMs), or a status Fedify
     * treats as permanent (404, 410).
     */
    record(error: unknown, permanent = false): void {
      const message = runningMessage.getStore();
      if (!isOutboxMessage(message)) return;
      let host: string;
      try {
        host = new URL(message.inbox).host;
      } catch {
        return;
      }
      const status = statusOf(error);
      const gaveUp = permanent || (status !== null && [404, 410].includes(status)) || outboxRetryDelayMs(message.attempt, () => 0) === null;
      // fetch's own error says only "fetch failed": its innermost cause tells a refused address (safe-fetch.ts) from a timeout.
      let root: unknown = error;
      for (let i = 0; i < 5 && root instanceof Error && root.cause instanceof Error; i++) root = root.cause;
      const cause = root !== error && root instanceof Error ? ` (${root.message})` : '';
      const text = status !== null ? `HTTP ${status}` : error instanceof Error ? `${error.name}: ${error.message}${cause}` : String(error);
      write.immediate([host, message.inbox, shortType(message.activityType), status, text.slice(0, ERROR_CHARS), message.attempt, gaveUp ? 1 : 0, now()]);
    },
    /** Waiting deliveries by server, most first. */
    queue(): { waiting: number; servers: QueueByServer[] } {
      const servers = new Map<string, QueueByServer>();
      let waiting = 0;
      for (const row of byServer.all()) {
        waiting++;
        let host = 'several servers';
        try {
          if (row.inbox !== null) host = new URL(row.inbox).host;
        } catch {
          // An inbox Fedify could not parse either: counted, under the catch-all.
        }
        const entry = servers.get(host) ?? { host, waiting: 0, retrying: 0, nextAttemptAt: row.runAt };
        entry.waiting++;
        if ((row.attempt ?? 0) > 0) entry.retrying++;
        entry.nextAttemptAt = Math.min(entry.nextAttemptAt, row.runAt);
        servers.set(host, entry);
      }
      return { waiting, servers: [...servers.values()].sort((a, b) => b.waiting - a.waiting || a.host.localeCompare(b.host)) };
    },
    recent: (limit: number): FailureRow[] => recent.all(limit),
    /** Deliveries given up on in the last `ms`. */
    gaveUpSince: (ms: number): number => gaveUpCount.get(now() - ms) ?? 0,
  };
}

export type DeliveryFailures = ReturnType<typeof createDeliveryFailures>;
