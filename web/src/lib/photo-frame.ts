/** The tallest frame a post's photo gets: 4:5 portrait. */
export const FRAME_MIN_RATIO = 4 / 5;
/** The widest: 1.91:1 landscape. */
export const FRAME_MAX_RATIO = 1.91;

/**
 * The aspect ratio (width / height) of a post's photo frame: the photo's own, clamped
 * between 4:5 portrait and 1.91:1 landscape, as Instagram does. Unclamped, a 9:16 phone
 * photo would be 650 px tall on a 390-px phone, most of the screen, pushing the caption
 * and the buttons out of view; a panorama would be a thin strip. Past the clamp the photo
 * is cropped to the frame around its centre (object-fit: cover), never letterboxed, so a
 * frame has no empty bands. A photo of unknown size (0) gets a square.
 */
export function frameRatio(width: number, height: number): number {
  if (!(width > 0 && height > 0)) return 1;
  return Math.min(FRAME_MAX_RATIO, Math.max(FRAME_MIN_RATIO, width / height));
}

/**
 * The card's photo width in CSS pixels (components/page.module.css: a 600-px column with
 * 12 px padding on phones, 16 px from 768 px wide; 1-px card border), and the same width
 * in a post opened from a grid (post-dialog.module.css): what `sizes` tells the browser
 * so it picks the medium rendition on a phone and the display one where it is needed.
 */
const FRAME_SIZES = { desktop: 574, phoneMargin: 26, desktopFrom: 600 };

/**
 * `sizes` for a post's photo. A photo wider than 1.91:1 is cropped at the sides, so it is
 * drawn wider than its frame by photo ratio / frame ratio; asking for that width keeps it sharp.
 */
export function photoSizes(width: number, height: number): string {
  const scale = width > 0 && height > 0 ? Math.max(1, width / height / frameRatio(width, height)) : 1;
  const k = Math.round(scale * 1000) / 1000;
  const { desktop, phoneMargin, desktopFrom } = FRAME_SIZES;
  return k === 1
    ? `(min-width: ${desktopFrom}px) ${desktop}px, calc(100vw - ${phoneMargin}px)`
    : `(min-width: ${desktopFrom}px) ${Math.round(desktop * k)}px, calc((100vw - ${phoneMargin}px) * ${k})`;
}

/** The renditions of a post's photo the card offers the browser. */
export interface PhotoRenditions {
  s3Url: string;
  width: number;
  height: number;
  /** The 768-px rendition (null when the photo is not much wider than it). */
  mediumUrl: string | null;
  mediumWidth: number;
}

/**
 * `srcset` for a post's photo: a phone gets the 768-px rendition, not the 1,440-px one
 * (server/src/images/pipeline.ts); undefined when there is only one. The card's <img> and
 * index.html's early preload of the first photo (src/early-requests.ts) both use it, so the
 * browser finds the preloaded file in its cache instead of fetching another.
 */
export function photoSrcSet(post: PhotoRenditions): string | undefined {
  return post.mediumUrl ? `${post.mediumUrl} ${post.mediumWidth}w, ${post.s3Url} ${post.width}w` : undefined;
}
