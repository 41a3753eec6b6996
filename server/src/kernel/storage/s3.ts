import { Client, type ClientOptions, type S3Error } from 'minio';
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { Storage } from './storage.js';

/** Connection settings of a minio Client for one endpoint URL (http(s)://host[:port], no path). */
export function clientOptionsFor(endpoint: string, s3: Config['storage']['s3']): ClientOptions {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`S3 endpoint "${endpoint}" is not a URL (expected http(s)://host[:port])`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`S3 endpoint "${endpoint}" must start with http:// or https://`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    // The S3 protocol signs the path: a proxy prefix like /s3 would break every signature.
    throw new Error(`S3 endpoint "${endpoint}" must have no path: give the server its own host name or port`);
  }
  const useSSL = url.protocol === 'https:';
  return {
    endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    // With the region given, the client never asks the server for it, so signing a URL is offline.
    region: s3.region,
    // Bucket in the path (http://host/bucket/key): works with MinIO, SeaweedFS and any host name.
    pathStyle: true,
  };
}

const NOT_FOUND_CODES = new Set(['NoSuchKey', 'NotFound', 'NoSuchObject']);

function isNotFound(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as S3Error).code;
  return typeof code === 'string' && NOT_FOUND_CODES.has(code);
}

const SINGLE_PUT_LIMIT = 16 * 1024 * 1024;

/** Reads a stream until it ends or more than `limit` bytes arrived, keeping the rest unread. */
async function readUpTo(stream: Readable, limit: number) {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= limit) {
    const next = await iterator.next();
    if (next.done) return { ended: true as const, chunks, iterator };
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    chunks.push(chunk);
    total += chunk.length;
  }
  return { ended: false as const, chunks, iterator };
}

async function* replay(chunks: Buffer[], rest: AsyncIterator<Buffer | string>) {
  yield* chunks;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/** Keys are made by the server; refuse anything that is not a plain relative path all the same. */
function checkKey(key: string): string {
  const parts = key.split('/');
  if (key === '' || key.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

/** The same error shape the local driver gives for a missing file, so callers answer 404 either way. */
function missing(key: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`No stored object at ${key}`);
  err.code = 'ENOENT';
  return err;
}

/**
 * Storage on any S3 server (MinIO, SeaweedFS, AWS) through the minio client.
 * The server talks to `s3.endpoint` (e.g. http://minio:9000 inside compose);
 * presigned upload URLs are signed for `s3.publicEndpoint`, the address the
 * browser reaches. The bucket gets no policy, so nothing in it is public: the
 * app serves processed images itself under /media/… through read().
 */
export async function createS3Storage(config: Config): Promise<Storage> {
  const s3 = config.storage.s3;
  if (!s3.accessKey || !s3.secretKey) throw new Error('S3_ACCESS_KEY and S3_SECRET_KEY must be set for the s3 storage driver');
  const client = new Client(clientOptionsFor(s3.endpoint, s3));
  const signer = new Client(clientOptionsFor(s3.publicEndpoint, s3));
  const bucket = s3.bucket;

  if (!(await client.bucketExists(bucket))) {
    try {
      await client.makeBucket(bucket, s3.region);
    } catch (err) {
      // Another instance created it between our check and our call: that is fine.
      const code = (err as S3Error).code;
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
    }
  }

  return {
    driver: 's3',

    async presignPut(key, _contentType, expiresInSeconds) {
      // SigV4 query signing covers the method, host, path and expiry; the content type
      // and size are checked after the upload (create-post stats and decodes the object).
      return signer.presignedUrl('PUT', bucket, checkKey(key), expiresInSeconds);
    },

    async stat(key) {
      try {
        const info = await client.statObject(bucket, checkKey(key));
        return { size: info.size };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async read(key): Promise<Readable> {
      try {
        return await client.getObject(bucket, checkKey(key));
      } catch (err) {
        if (isNotFound(err)) throw missing(key);
        throw err;
      }
    },

    async write(key, body, contentType) {
      checkKey(key);
      const meta = { 'Content-Type': contentType };
      if (Buffer.isBuffer(body)) {
        await client.putObject(bucket, key, body, body.length, meta);
        return;
      }
      // A stream of unknown length: small ones (every processed image) go up in one
      // PUT; only a stream past SINGLE_PUT_LIMIT uses the client's multipart upload.
      const head = await readUpTo(body, SINGLE_PUT_LIMIT);
      if (head.ended) {
        const buffer = Buffer.concat(head.chunks);
        await client.putObject(bucket, key, buffer, buffer.length, meta);
      } else {
        await client.putObject(bucket, key, Readable.from(replay(head.chunks, head.iterator)), undefined, meta);
      }
    },

    async delete(key) {
      // S3 answers 204 for a missing key too, so deleting twice is not an error.
      await client.removeObject(bucket, checkKey(key));
    },

    async *list(prefix) {
      const stream = client.listObjectsV2(bucket, prefix, true);
      for await (const item of stream as AsyncIterable<{ name?: string; lastModified?: Date }>) {
        if (item.name) yield { key: item.name, lastModified: item.lastModified ?? new Date(0) };
      }
    },

    async ping() {
      if (!(await client.bucketExists(bucket))) throw new Error(`bucket ${bucket} is missing`);
    },
  };
}
