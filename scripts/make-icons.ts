/**
 * The web app's installable icons (web/public/manifest.webmanifest, the apple-touch-icon
 * in web/index.html), drawn from web/public/beer-mug.svg. The PNGs are committed; run
 * `npx tsx scripts/make-icons.ts` again after changing the SVG.
 *
 *   icon-192.png, icon-512.png  the round mug as it is ("any": shown as drawn, corners clear)
 *   maskable-512.png            the mug inside the safe zone (the middle 80%) on a full square of
 *                               its own cream, so a launcher can cut any shape out of it
 *   apple-touch-icon.png        180 px, opaque the same way (iOS shows transparency as black)
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(join(root, 'web', 'public', 'beer-mug.svg'));
const out = join(root, 'web', 'public', 'icons');
/** The SVG's own background circle, so the mug sits on one seamless colour. */
const CREAM = '#fff4d6';

/** The SVG drawn `size` px square, its vector scaled (not a bitmap blown up). */
const drawn = (size: number) => sharp(svg, { density: (72 * size) / 128 }).resize(size, size).png().toBuffer();

/** The mug at `share` of a `size` square of cream. */
async function onCream(size: number, share: number) {
  const inner = Math.round(size * share);
  const offset = Math.round((size - inner) / 2);
  return sharp({ create: { width: size, height: size, channels: 4, background: CREAM } })
    .composite([{ input: await drawn(inner), left: offset, top: offset }])
    .flatten({ background: CREAM })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

async function main() {
  mkdirSync(out, { recursive: true });
  const files: [string, Promise<Buffer>][] = [
    ['icon-192.png', drawn(192)],
    ['icon-512.png', drawn(512)],
    // The mug reaches 39% of the drawing from its centre (the foam's corner): drawn at 90%, 35% of
    // the icon, inside the safe zone's 40% radius whatever shape the launcher cuts.
    ['maskable-512.png', onCream(512, 0.9)],
    ['apple-touch-icon.png', onCream(180, 0.92)],
  ];
  for (const [name, image] of files) {
    await sharp(await image).toFile(join(out, name));
    console.log(`web/public/icons/${name}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
