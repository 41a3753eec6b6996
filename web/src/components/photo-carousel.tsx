import { useId, useRef, useState } from 'react';
import { BackIcon } from '@/components/icons';
import type { Photo } from '@/lib/api/posts';
import { frameRatio, photoSizes, photoSrcSet } from '@/lib/photo-frame';
import styles from './photo-carousel.module.css';

interface PhotoCarouselProps {
  photos: Photo[];
  /** The photo shown, 0-based (the card shows that photo's description). */
  index: number;
  onIndexChange: (index: number) => void;
  /** Each photo's `alt`: its own description, or one made from the caption (lib/format.ts, photoAlt). */
  altOf: (photo: Photo, index: number) => string;
  /** The first photo loads at once (the first cards of a feed); the others when they are next. */
  eager?: boolean;
  priority?: boolean;
  onDoubleClick?: () => void;
}

/** How far a swipe must go, as a share of the frame's width, to move to the next photo. */
const SWIPE_SHARE = 0.2;

/**
 * An album in a feed or a post's own view (docs/web.md, "Albums"): one photo at a time in a frame
 * of the first photo's shape (clamped to 4:5…1.91:1 as a single photo's, lib/photo-frame.ts), so
 * the card keeps its height from photo to photo; each photo fills it (cover), as a single photo does.
 * It moves by swipe (pointer events, horizontal only: vertical drags scroll the page), by the
 * previous and next buttons, and by the arrow keys when focused. Screen readers hear "2 of 5";
 * the dots say the same to the eye. Only the photos reached so far and the next one are fetched.
 */
export function PhotoCarousel({ photos, index, onIndexChange, altOf, eager = false, priority = false, onDoubleClick }: PhotoCarouselProps) {
  const count = photos.length;
  const [reached, setReached] = useState(index);
  const [drag, setDrag] = useState<number | null>(null);
  const start = useRef<{ x: number; y: number; id: number; horizontal: boolean | null } | null>(null);
  const frame = useRef<HTMLDivElement>(null);
  const labelId = useId();
  const first = photos[0]!;

  function go(next: number) {
    const to = Math.max(0, Math.min(count - 1, next));
    if (to === index) return;
    setReached((r) => Math.max(r, to));
    onIndexChange(to);
  }

  function onPointerDown(e: React.PointerEvent) {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    start.current = { x: e.clientX, y: e.clientY, id: e.pointerId, horizontal: null };
  }
  function onPointerMove(e: React.PointerEvent) {
    const s = start.current;
    if (!s || s.id !== e.pointerId) return;
    const dx = e.clientX - s.x;
    const dy = e.clientY - s.y;
    if (s.horizontal === null && Math.abs(dx) + Math.abs(dy) > 8) {
      s.horizontal = Math.abs(dx) > Math.abs(dy);
      if (s.horizontal) frame.current?.setPointerCapture(e.pointerId);
    }
    if (s.horizontal) {
      // The next photo is fetched as soon as a swipe starts towards it.
      if (dx < 0) setReached((r) => Math.max(r, Math.min(count - 1, index + 1)));
      // Past the ends the photo only gives a little.
      setDrag((index === 0 && dx > 0) || (index === count - 1 && dx < 0) ? dx / 4 : dx);
    }
  }
  function onPointerEnd(e: React.PointerEvent) {
    const s = start.current;
    if (!s || s.id !== e.pointerId) return;
    start.current = null;
    const width = frame.current?.clientWidth ?? 1;
    const dx = drag ?? 0;
    setDrag(null);
    if (s.horizontal && Math.abs(dx) > width * SWIPE_SHARE) go(index + (dx < 0 ? 1 : -1));
  }

  function onKeyDown(e: React.KeyboardEvent) {
    if (e.key === 'ArrowRight') go(index + 1);
    else if (e.key === 'ArrowLeft') go(index - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(count - 1);
    else return;
    e.preventDefault();
  }

  // A button that disappears at an end would take the focus with it: it goes to the carousel.
  const press = (step: number) => (e: React.MouseEvent<HTMLButtonElement>) => {
    const to = index + step;
    if (to <= 0 || to >= count - 1) frame.current?.focus();
    go(to);
    e.stopPropagation();
  };

  const offset = drag === null ? `${-index * 100}%` : `calc(${-index * 100}% + ${drag}px)`;

  return (
    <div
      ref={frame}
      className={styles.frame}
      style={{ aspectRatio: frameRatio(first.width, first.height) }}
      role="region"
      aria-roledescription="carousel"
      aria-labelledby={labelId}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerEnd}
      onPointerCancel={onPointerEnd}
    >
      <span id={labelId} className="visually-hidden">
        {`Album of ${count} photos`}
      </span>
      <div className={`${styles.track} ${drag === null ? styles.settling : ''}`} style={{ transform: `translateX(${offset})` }}>
        {photos.map((photo, i) => (
          <div
            key={photo.s3Url}
            className={styles.slide}
            role="group"
            aria-roledescription="photo"
            aria-label={`${i + 1} of ${count}`}
            aria-hidden={i !== index || undefined}
          >
            {i <= reached + 1 ? (
              <img
                src={photo.s3Url}
                srcSet={photoSrcSet(photo)}
                sizes={photo.mediumUrl ? photoSizes(photo.width, photo.height) : undefined}
                width={photo.width || undefined}
                height={photo.height || undefined}
                alt={altOf(photo, i)}
                // Only the photos reached and the next one have an <img> at all; lazy, the next one
                // still waits until its card comes near the screen, as a single photo does.
                loading={i === 0 && eager ? 'eager' : 'lazy'}
                fetchPriority={i === 0 && priority ? 'high' : 'auto'}
                decoding={i === 0 && priority ? 'sync' : 'async'}
                draggable={false}
                onDoubleClick={onDoubleClick}
              />
            ) : null}
          </div>
        ))}
      </div>
      <p className="visually-hidden" aria-live="polite">
        {`${index + 1} of ${count}`}
      </p>
      {index > 0 && (
        <button type="button" className={`${styles.arrow} ${styles.previous}`} aria-label="Previous photo" onClick={press(-1)}>
          <BackIcon size={18} />
        </button>
      )}
      {index < count - 1 && (
        <button type="button" className={`${styles.arrow} ${styles.next}`} aria-label="Next photo" onClick={press(1)}>
          <BackIcon size={18} />
        </button>
      )}
      <span className={styles.counter} aria-hidden="true">
        {index + 1}/{count}
      </span>
      <span className={styles.dots} aria-hidden="true">
        {photos.map((photo, i) => (
          <span key={photo.s3Url} className={i === index ? styles.current : undefined} />
        ))}
      </span>
    </div>
  );
}
