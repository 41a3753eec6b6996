import type { Config } from '../config.js';
import { createLocalStorage } from './local.js';
import type { Storage } from './storage.js';

/** The configured storage driver; the S3 one is loaded only when used. */
export async function createStorage(config: Config): Promise<Storage> {
  if (config.storage.driver === 's3') return (await import('./s3.js')).createS3Storage(config);
  return createLocalStorage(config);
}
