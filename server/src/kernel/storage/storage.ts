import type { Readable } from 'node:stream';

/**
 * Where raw uploads and processed images live. Keys are '/'-separated, made by
 * the server only (never from client input). Raw uploads go under `uploads/`
 * and are never served; processed images go under `media/` and are served at
 * /media/… by the server, whatever the driver.
 */
export interface Storage {
  readonly driver: 'local' | 's3';
  /** A URL the browser can PUT the file to, once, with this Content-Type, until it expires. */
  presignPut(key: string, contentType: string, expiresInSeconds: number): Promise<string>;
  /** Size of a stored object, or null when it does not exist. */
  stat(key: string): Promise<{ size: number } | null>;
  read(key: string): Promise<Readable>;
  write(key: string, body: Buffer | Readable, contentType: string): Promise<void>;
  /** Removes an object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Keys under a prefix with their last-modified time (for the orphan sweep). */
  list(prefix: string): AsyncIterable<{ key: string; lastModified: Date }>;
  /** Throws when the storage cannot be reached (readiness check). */
  ping(): Promise<void>;
}
