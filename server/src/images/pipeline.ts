import type { Readable } from 'node:stream';
import sharp, { type Metadata, type SharpOptions } from 'sharp';
import { payloadTooLarge, unprocessable } from '../errors.js';

// The cache only helps when the same file is processed twice; here it would just hold memory.
sharp.cache(false);

/** Formats people upload photos in; anything else (SVG, PDF, raw camera files…) is refused. */
const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'avif', 'tiff']);

export const DISPLAY_MAX = 1440;
export const THUMB_SIZE = 400;

export interface ProcessedImage {
  /** WebP, longest side ≤ 1440, auto-oriented, no metadata. */
  display: Buffer;
  /** WebP, 400×400 centre crop (smaller images are not enlarged), no metadata. */
  thumb: Buffer;
  /** Of the display image. */
  width: number;
  height: number;
  /** What the upload really was, whatever its name or Content-Type said. */
  sourceFormat: string;
}

export interface PipelineOptions {
  /** Largest decoded size accepted (width × height). */
  maxPixels: number;
  /** Largest input accepted, in bytes. */
  maxBytes: number;
}

async function readCapped(input: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > maxBytes) {
      input.destroy();
      throw payloadTooLarge(`The file is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB allowed.`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}

const notAnImage = () =>
  unprocessable('The file is not an image we can read (JPEG, PNG, WebP, GIF, AVIF or TIFF), or it is damaged or incomplete.');

/**
 * Turns raw upload bytes into the only images ever served. The source is
 * checked by its content (never its name or type), refused past maxPixels
 * before any decoding (decompression bombs), decoded once, auto-oriented,
 * and re-encoded without any metadata (no EXIF, GPS, XMP or ICC is copied:
 * sharp drops them unless withMetadata/keepExif is asked for, which we never do).
 */
export async function processImage(input: Readable, opts: PipelineOptions): Promise<ProcessedImage> {
  const bytes = await readCapped(input, opts.maxBytes);
  const options: SharpOptions = { limitInputPixels: opts.maxPixels, failOn: 'warning', sequentialRead: true };

  let meta: Metadata;
  try {
    // Header only, no pixels decoded: the size check below gives the clear answer.
    meta = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw notAnImage();
  }
  if (!meta.format || !ACCEPTED.has(meta.format) || !meta.width || !meta.height) throw notAnImage();
  if (meta.width * meta.height > opts.maxPixels) {
    throw unprocessable(
      `The image is too large: ${meta.width}×${meta.height} pixels is more than the ${opts.maxPixels.toLocaleString('en-US')} allowed.`,
    );
  }

  try {
    // The one full decode: orient, shrink, and keep the pixels to derive both outputs from.
    const { data, info } = await sharp(bytes, options)
      .timeout({ seconds: 60 })
      .rotate()
      .resize({ width: DISPLAY_MAX, height: DISPLAY_MAX, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
    const [display, thumb] = await Promise.all([
      sharp(data, raw).webp({ quality: 82, effort: 4 }).toBuffer(),
      sharp(data, raw)
        .resize({ width: THUMB_SIZE, height: THUMB_SIZE, fit: 'cover', position: 'centre', withoutEnlargement: true })
        .webp({ quality: 72, effort: 4 })
        .toBuffer(),
    ]);
    return { display, thumb, width: info.width, height: info.height, sourceFormat: meta.format };
  } catch {
    // Truncated or corrupt data shows up here, when the pixels are decoded.
    throw notAnImage();
  }
}
