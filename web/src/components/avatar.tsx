import { BeerIcon } from '@/components/icons';
import { initialOf } from '@/lib/format';
import styles from './avatar.module.css';

interface AvatarProps {
  /** The person's name, for the initial and the image's alt text; null shows the beer icon. */
  name: string | null;
  pictureUrl?: string | null;
  size?: number;
  /** Show the local beer-mug image when there is no picture (own profile). */
  fallbackMug?: boolean;
  className?: string;
  /** Next to a text label that already says who it is: hide the image from assistive tech. */
  decorative?: boolean;
}

export function Avatar({ name, pictureUrl, size = 40, fallbackMug = false, className, decorative = false }: AvatarProps) {
  // An image's width and height attributes size it; a letter or icon needs the box set. No style
  // on images: the navigation bar's avatar is in the server's prerender (src/prerender/render.tsx),
  // where a style attribute is markup the Content-Security-Policy (style-src 'self') refuses.
  const style = { width: size, height: size, fontSize: Math.round(size * 0.42) };
  const cls = `${styles.avatar} ${className ?? ''}`;
  if (pictureUrl) {
    return (
      <img
        className={cls}
        src={pictureUrl}
        width={size}
        height={size}
        alt={decorative ? '' : name ? `${name}'s profile photo` : 'Profile photo'}
        decoding="async"
      />
    );
  }
  if (fallbackMug) {
    return <img className={cls} src="/beer-mug.svg" width={size} height={size} alt={decorative ? '' : 'Default beer mug avatar'} />;
  }
  if (!name) {
    return (
      <span className={`${cls} ${styles.beer}`} style={style} role="img" aria-label="Beer icon">
        <BeerIcon size={Math.round(size * 0.55)} />
      </span>
    );
  }
  return (
    <span className={`${cls} ${styles.initial}`} style={style} aria-hidden="true">
      {initialOf(name)}
    </span>
  );
}
