import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import type { Storage } from '../kernel/storage/storage.js';
import type { MediaRepository } from './media-repository.js';

export interface SweepDeps {
  repo: MediaRepository;
  storage: Storage;
  /** Stops quietly once the database is closed (the server is shutting down). */
  sqlite: Database.Database;
  ttlSeconds: number;
  log?: FastifyBaseLogger;
}

export interface SweepResult {
  /** Upload rows removed (never turned into a post, or already used). */
  rows: number;
  /** Raw files removed. */
  files: number;
}

/**
 * Removes raw uploads older than the TTL: their rows (pending, uploaded, or
 * used long ago) with their files, and raw files that have no row at all
 * (a crash between writing and recording). Processed media is never touched.
 */
export async function sweepOrphans(deps: SweepDeps, now = Date.now()): Promise<SweepResult> {
  const { repo, storage, sqlite } = deps;
  const cutoff = now - deps.ttlSeconds * 1000;
  const result: SweepResult = { rows: 0, files: 0 };

  for (;;) {
    if (!sqlite.open) return result;
    const stale = repo.staleUploads(cutoff, 200);
    if (stale.length === 0) break;
    for (const row of stale) {
      if (row.status !== 'used' && (await storage.stat(row.key))) {
        await storage.delete(row.key);
        result.files++;
      }
      if (!sqlite.open) return result;
      if (repo.deleteUploadIfUnchanged(row)) result.rows++;
    }
    if (stale.length < 200) break;
  }

  for await (const item of storage.list('uploads/')) {
    if (!sqlite.open) return result;
    if (item.lastModified.getTime() >= cutoff || repo.hasUpload(item.key)) continue;
    await storage.delete(item.key);
    result.files++;
  }
  if (result.rows || result.files) deps.log?.info(result, 'removed orphaned uploads');
  return result;
}
