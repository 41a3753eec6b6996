import type { Readable } from 'node:stream';
import sharp, { type Metadata, type SharpOptions } from 'sharp';
import { payloadTooLarge, unprocessable } from '../../kernel/errors.js';

// The cache only helps when the same file is processed twice; here it would just hold memory.
sharp.cache(false);

/** Formats people upload photos in; anything else (SVG, PDF, raw camera files…) is refused. */
const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'avif', 'tiff']);

export const DISPLAY_MAX = 1440;
export const THUMB_SIZE = 400;
/**
 * Width of the medium rendition a phone gets through srcset (web/src/components/post-card.tsx).
 * On a 390-px-wide phone the card's photo is 390 − 26 = 364 CSS px wide; at a device pixel ratio
 * of 2 that is 728 pixels, at 1.75 637. 768 covers both (and phones up to ~410 px wide at 2×) in
 * every browser: Firefox and Safari take the first candidate at least as dense as the screen, so
 * 720 (1.98×) would lose to the 1,440 px display image there. Desktops at 1× (574 px) take it too;
 * 3× phones still need the display image. Width only (no height cap): the frame's width is what
 * the photo fills, a portrait one being cropped to 4:5 at most (web/src/lib/photo-frame.ts).
 */
export const MEDIUM_WIDTH = 768;
/**
 * No medium rendition unless the display image is at least this wide: below it the medium would
 * save under ~35% of the pixels while the post stores a third image.
 */
export const MEDIUM_MIN_SOURCE_WIDTH = Math.round(MEDIUM_WIDTH * 1.25);

export interface ProcessedImage {
  /** WebP, longest side ≤ 1440, auto-oriented, no metadata. */
  display: Buffer;
  /** WebP, 400×400 centre crop (smaller images are not enlarged), no metadata. */
  thumb: Buffer;
  /** WebP, the display image at MEDIUM_WIDTH wide; null when the display is narrower than MEDIUM_MIN_SOURCE_WIDTH. */
  medium: { data: Buffer; width: number } | null;
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
    const [display, thumb, medium] = await Promise.all([
      sharp(data, raw).webp({ quality: 82, effort: 4 }).toBuffer(),
      sharp(data, raw)
        .resize({ width: THUMB_SIZE, height: THUMB_SIZE, fit: 'cover', position: 'centre', withoutEnlargement: true })
        .webp({ quality: 72, effort: 4 })
        .toBuffer(),
      // From the same decoded pixels: no second decode of the upload.
      info.width >= MEDIUM_MIN_SOURCE_WIDTH
        ? sharp(data, raw).resize({ width: MEDIUM_WIDTH }).webp({ quality: 80, effort: 4 }).toBuffer({ resolveWithObject: true })
        : null,
    ]);
    return {
      display,
      thumb,
      medium: medium ? { data: medium.data, width: medium.info.width } : null,
      width: info.width,
      height: info.height,
      sourceFormat: meta.format,
    };
  } catch {
    // Truncated or corrupt data shows up here, when the pixels are decoded.
    throw notAnImage();
  }
}

/**
 * A JPEG of a display rendition, for other servers (federation): Pixelfed takes JPEG, PNG and
 * GIF by default and drops a post whose photos it cannot take. Made when asked for, not stored:
 * a stored copy would outlive the post (removal deletes the renditions it knows by name).
 */
export async function displayJpeg(webp: Buffer): Promise<Buffer> {
  return sharp(webp, { limitInputPixels: DISPLAY_MAX * DISPLAY_MAX }).jpeg({ quality: 85, progressive: true }).toBuffer();
}
