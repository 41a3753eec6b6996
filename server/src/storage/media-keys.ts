/** Where a processed image is stored and served; the only images ever served. */
export const displayKey = (mediaKey: string) => `media/${mediaKey}/display.webp`;
export const thumbKey = (mediaKey: string) => `media/${mediaKey}/thumb.webp`;

/** Public URLs of a post's images (same-origin paths, cached as immutable). */
export function mediaUrls(mediaKey: string) {
  return { s3Url: `/${displayKey(mediaKey)}`, thumbnailUrl: `/${thumbKey(mediaKey)}` };
}
