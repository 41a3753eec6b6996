/** Where a processed image is stored and served; the only images ever served. */
export const displayKey = (mediaKey: string) => `media/${mediaKey}/display.webp`;
export const thumbKey = (mediaKey: string) => `media/${mediaKey}/thumb.webp`;
/** The smaller rendition phones get through srcset; only posts with medium_width > 0 have one. */
export const mediumKey = (mediaKey: string) => `media/${mediaKey}/medium.webp`;

/** Every processed image a post may have, for deleting them all (a missing one is no error). */
export const allMediaKeys = (mediaKey: string) => [displayKey(mediaKey), mediumKey(mediaKey), thumbKey(mediaKey)];

/** Public URLs of a post's images (same-origin paths, cached as immutable). */
export function mediaUrls(mediaKey: string) {
  return { s3Url: `/${displayKey(mediaKey)}`, thumbnailUrl: `/${thumbKey(mediaKey)}` };
}

/** The medium rendition's URL, or null when the post has none (mediumWidth 0). */
export const mediumUrl = (mediaKey: string, mediumWidth: number): string | null => (mediumWidth > 0 ? `/${mediumKey(mediaKey)}` : null);

/**
 * A sensitive post's first photo blurred by the server (media/images/blur.ts), under a key of its
 * own (posts.blur_key): the URL a viewer who must see it blurred gets names nothing of the photo's.
 */
export const blurKey = (key: string) => `media/${key}/blur.webp`;
export const blurUrl = (key: string) => `/${blurKey(key)}`;

/**
 * What /media/ serves for a remote photo dropped to be fetched again (federation/remote-media.ts)
 * until it is back: 4×3 pixels of a neutral grey, WebP, stretched to the photo's box.
 */
export const PLACEHOLDER_WEBP = Buffer.from('UklGRigAAABXRUJQVlA4IBwAAABQAQCdASoEAAMAAsBMJZwABDOAAP7w8atO7AAA', 'base64');
