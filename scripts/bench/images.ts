import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { displayKey, thumbKey } from '../../server/src/kernel/storage/media-keys.js';
import type { Rng } from './random.js';

export interface SharedMedia {
  key: string;
  width: number;
  height: number;
}

/**
 * A smooth synthetic "photo" (amber gradient, foam, bubbles, a little grain):
 * it compresses like a real picture, unlike pure noise. `grain` raises the
 * entropy when a big file is wanted.
 */
export function syntheticPhoto(width: number, height: number, rng: Rng, grain = 6): Buffer {
  const px = Buffer.alloc(width * height * 3);
  const hue = rng.next();
  const bubbles = Array.from({ length: 40 }, () => ({
    x: rng.next() * width,
    y: rng.next() * height,
    r: (0.01 + rng.next() * 0.05) * Math.min(width, height),
  }));
  const fx = 2 + rng.next() * 4;
  const fy = 2 + rng.next() * 4;
  let seed = Math.floor(rng.next() * 2 ** 31) | 1;
  for (let y = 0; y < height; y++) {
    const v = y / height;
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const wave = Math.sin(u * fx * Math.PI + hue * 6) * Math.cos(v * fy * Math.PI);
      let r = 200 + 40 * wave - 60 * v;
      let g = 130 + 50 * wave * hue - 70 * v;
      let b = 30 + 30 * (1 - hue) + 20 * wave;
      if (v < 0.18) {
        r = g = 235 - 30 * v;
        b = 220;
      }
      // xorshift grain: cheap per-pixel noise
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const n = ((seed & 0xff) / 255 - 0.5) * 2 * grain;
      const i = (y * width + x) * 3;
      px[i] = Math.max(0, Math.min(255, r + n));
      px[i + 1] = Math.max(0, Math.min(255, g + n));
      px[i + 2] = Math.max(0, Math.min(255, b + n));
    }
  }
  for (const bub of bubbles) {
    const x0 = Math.max(0, Math.floor(bub.x - bub.r));
    const x1 = Math.min(width - 1, Math.ceil(bub.x + bub.r));
    const y0 = Math.max(0, Math.floor(bub.y - bub.r));
    const y1 = Math.min(height - 1, Math.ceil(bub.y + bub.r));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const d = Math.hypot(x - bub.x, y - bub.y) / bub.r;
        if (d > 1) continue;
        const i = (y * width + x) * 3;
        const k = d > 0.85 ? 0.6 : 0.15;
        px[i] = px[i]! + (255 - px[i]!) * k;
        px[i + 1] = px[i + 1]! + (255 - px[i + 1]!) * k;
        px[i + 2] = px[i + 2]! + (255 - px[i + 2]!) * k;
      }
    }
  }
  return px;
}

const SHAPES: [number, number][] = [
  [1440, 1080],
  [1080, 1440],
  [1440, 1440],
  [1440, 960],
  [1080, 1350],
  [1440, 810],
];

/** Deterministic media keys shaped like the server's (22 base64url characters, 16 random bytes). */
export const seedMediaKey = (i: number) => `SeedMedia-${String(i).padStart(12, '0')}`;

/**
 * Writes a few processed images (display ≤ 1440 px and thumb ≤ 400 px WebP)
 * once into the local storage layout, DATA_DIR/storage/media/<key>/…; every
 * seeded post and profile picture points at one of them.
 */
export async function writeSharedMedia(storageDir: string, count: number, rng: Rng): Promise<SharedMedia[]> {
  const media: SharedMedia[] = [];
  for (let i = 0; i < count; i++) {
    const [width, height] = SHAPES[i % SHAPES.length]!;
    const key = seedMediaKey(i + 1);
    const raw = syntheticPhoto(width, height, rng);
    const image = sharp(raw, { raw: { width, height, channels: 3 } });
    const display = await image.clone().webp({ quality: 80 }).toBuffer();
    const thumb = await image.clone().resize(400, 400, { fit: 'inside' }).webp({ quality: 75 }).toBuffer();
    for (const [k, bytes] of [
      [displayKey(key), display],
      [thumbKey(key), thumb],
    ] as const) {
      const file = join(storageDir, ...k.split('/'));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, bytes);
    }
    media.push({ key, width, height });
  }
  return media;
}

/**
 * A JPEG photo of about `targetBytes` at this size, cached on disk: the upload
 * benchmark's 5 MB photo and the 24-megapixel 20 MB one.
 */
export async function photoFile(dir: string, width: number, height: number, targetBytes: number, rng: Rng): Promise<string> {
  const file = join(dir, `photo-${width}x${height}-${Math.round(targetBytes / 1e6)}MB.jpg`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  let grain = 20;
  let best: Buffer | null = null;
  for (let attempt = 0; attempt < 6; attempt++) {
    const raw = syntheticPhoto(width, height, rng, grain);
    const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 95, chromaSubsampling: '4:4:4' })
      .withMetadata({ orientation: 1 })
      .toBuffer();
    best = jpeg;
    const ratio = jpeg.length / targetBytes;
    if (ratio > 0.9 && ratio < 1.15) break;
    grain = Math.max(1, Math.min(255, grain / Math.pow(ratio, 1.3)));
  }
  writeFileSync(file, best!);
  return file;
}

export const fileSize = (file: string) => statSync(file).size;
