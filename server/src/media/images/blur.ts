import sharp from 'sharp';

/** Width of the blurred image; its height keeps the photo's shape. Enough to fill a card without visible blocks. */
export const BLUR_WIDTH = 480;
/** The photo is first shrunk to at most this many pixels a side: nothing of it survives but its colours. */
const BLUR_SOURCE = 16;

/**
 * A sensitive post's photo as everyone but its author sees it until they choose "Show photo"
 * (docs/api.md, "Content warnings"): made here, from the processed display image, so the browser
 * is never sent the photo to blur with CSS (on a slow connection, or with styles off, that would
 * show it). Shrunk to 16 px, then enlarged and blurred again so the blocks do not show; WebP, no
 * metadata, a few KB.
 */
export async function blurImage(display: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(display)
    .resize({ width: BLUR_SOURCE, height: BLUR_SOURCE, fit: 'inside' })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const height = Math.max(1, Math.round((BLUR_WIDTH * info.height) / info.width));
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .resize({ width: BLUR_WIDTH, height, fit: 'fill', kernel: 'cubic' })
    .blur(12)
    .webp({ quality: 60, effort: 4 })
    .toBuffer();
}
