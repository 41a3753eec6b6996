import { Readable } from 'node:stream';
import sharp from 'sharp';
import t from 'tap';
import { HttpError } from '../../src/kernel/errors.js';
import { processImage } from '../../src/media/images/pipeline.js';

const opts = { maxPixels: 50_000_000, maxBytes: 10_000_000 };
const run = (bytes: Buffer, o = opts) => processImage(Readable.from([bytes]), o);

t.test('PNG with transparency, WebP and GIF sources become WebP display and thumbnail', async (t) => {
  const sources: [string, Buffer][] = [
    ['png', await sharp({ create: { width: 2000, height: 500, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } }).png().toBuffer()],
    ['webp', await sharp({ create: { width: 500, height: 2000, channels: 3, background: '#fa0' } }).webp().toBuffer()],
    ['gif', await sharp({ create: { width: 640, height: 480, channels: 3, background: '#0af' } }).gif().toBuffer()],
  ];
  for (const [format, bytes] of sources) {
    const out = await run(bytes);
    t.equal(out.sourceFormat, format);
    const d = await sharp(out.display).metadata();
    const th = await sharp(out.thumb).metadata();
    t.equal(d.format, 'webp', `${format} display is WebP`);
    t.equal(th.format, 'webp', `${format} thumbnail is WebP`);
    t.ok(Math.max(d.width!, d.height!) <= 1440, `${format} display ${d.width}×${d.height}`);
    t.same([out.width, out.height], [d.width, d.height], 'reported size is the display size');
    t.ok(th.width! <= 400 && th.height! <= 400, `${format} thumbnail ${th.width}×${th.height}`);
  }
});

t.test('the thumbnail is a square crop of a large photo', async (t) => {
  const out = await run(await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#123' } }).jpeg().toBuffer());
  t.same([out.width, out.height], [1440, 960]);
  const th = await sharp(out.thumb).metadata();
  t.same([th.width, th.height], [400, 400]);
});

t.test('refusals are 422 with a message a person understands', async (t) => {
  const refuse = async (bytes: Buffer, o = opts) => {
    try {
      await run(bytes, o);
    } catch (err) {
      return err as HttpError;
    }
    throw new Error('accepted');
  };
  const text = await refuse(Buffer.from('%PDF-1.7 not an image'));
  t.ok(text instanceof HttpError);
  t.equal(text.statusCode, 422);
  t.match(text.message, /not an image we can read/);

  const big = await refuse(await sharp({ create: { width: 1000, height: 1000, channels: 3, background: '#fff' } }).png().toBuffer(), {
    ...opts,
    maxPixels: 999_999,
  });
  t.equal(big.statusCode, 422);
  t.match(big.message, /1000×1000 pixels is more than the 999,999 allowed/);

  const huge = await refuse(Buffer.alloc(2000, 1), { ...opts, maxBytes: 1000 });
  t.equal(huge.statusCode, 413, 'the byte cap applies to what is read from storage too');
});
