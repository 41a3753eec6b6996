import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { bearer } from '../helpers.js';

/** A photo-like JPEG (noise, so it does not compress to nothing). */
export async function makeJpeg(width: number, height: number, options: { exif?: boolean; quality?: number } = {}) {
  const noise = await sharp({
    create: { width, height, channels: 3, background: { r: 90, g: 140, b: 200 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .jpeg({ quality: options.quality ?? 85 })
    .toBuffer();
  if (!options.exif) return noise;
  return sharp(noise)
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'Secret Model 3000', Copyright: 'Alice' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 2400/100',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 21/1 300/100',
      },
    })
    .jpeg({ quality: options.quality ?? 85 })
    .toBuffer();
}

export async function presign(app: FastifyInstance, token: string, body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/api/presign-upload', headers: bearer(token), payload: body });
}

/** Path and query of a presigned URL, for app.inject. */
export const injectUrl = (uploadUrl: string) => {
  const url = new URL(uploadUrl);
  return url.pathname + url.search;
};

/** Presigns and PUTs a file as the browser would; returns the s3Key. */
export async function upload(
  app: FastifyInstance,
  token: string,
  file: Buffer,
  type = 'image/jpeg',
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await presign(app, token, { fileName: 'photo.jpg', fileType: type, ...extra });
  if (res.statusCode !== 200) throw new Error(`presign failed: ${res.statusCode} ${res.body}`);
  const { uploadUrl, s3Key } = res.json() as { uploadUrl: string; s3Key: string };
  const put = await app.inject({ method: 'PUT', url: injectUrl(uploadUrl), headers: { 'content-type': type }, payload: file });
  if (put.statusCode !== 200) throw new Error(`upload failed: ${put.statusCode} ${put.body}`);
  return s3Key;
}

export async function createPost(app: FastifyInstance, token: string, body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/api/create-post', headers: bearer(token), payload: body });
}

export function counters(app: FastifyInstance, userId: number) {
  return app.database.sqlite
    .prepare(
      `SELECT post_count AS postCount, public_post_count AS publicPostCount, likes_received AS likesReceived,
              comments_received AS commentsReceived, profile_picture_key AS profilePictureKey
       FROM users WHERE id = ?`,
    )
    .get(userId) as {
    postCount: number;
    publicPostCount: number;
    likesReceived: number;
    commentsReceived: number;
    profilePictureKey: string | null;
  };
}

export const countRows = (app: FastifyInstance, table: 'posts' | 'uploads' | 'likes' | 'comments') =>
  (app.database.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
