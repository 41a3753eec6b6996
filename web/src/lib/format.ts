/**
 * One formatter per format, made on first use and kept: toLocaleDateString and friends make a
 * new one on every call, about a millisecond each once the locale data is loaded (a Notifications
 * page formats 40 times). Made lazily, as the screens without dates never need one.
 */
function keptFormat(options?: Intl.DateTimeFormatOptions): (d: Date) => string {
  let format: Intl.DateTimeFormat | null = null;
  return (d) => (format ??= new Intl.DateTimeFormat(undefined, options)).format(d);
}

const shortDate = keptFormat();
const dayDate = keptFormat({ weekday: 'long', month: 'long', day: 'numeric' });
const clockTime = keptFormat({ hour: 'numeric', minute: '2-digit' });

/** Post dates in the browser's local short date format. */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : shortDate(d);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * When a post was made, as Instagram and Mastodon say it: "now", "5 min", "2 h" within a day,
 * then the spec's local short date; `full` is the date and time, for the <time>'s title.
 */
export function postTime(iso: string, now = Date.now()): { text: string; full: string } {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return { text: '', full: '' };
  const full = `${shortDate(d)}, ${clockTime(d)}`;
  // A browser clock a little behind the server's still says "now", never a negative age.
  const age = Math.max(0, now - d.getTime());
  if (age < MINUTE) return { text: 'now', full };
  if (age < HOUR) return { text: `${Math.floor(age / MINUTE)} min`, full };
  if (age < 24 * HOUR) return { text: `${Math.floor(age / HOUR)} h`, full };
  return { text: shortDate(d), full };
}

/** "Wednesday, November 25", in the browser's language. */
export const formatDay = (d: Date) => dayDate(d);

/** "3:07 PM", in the browser's language. */
export const formatTime = (d: Date) => clockTime(d);

export const likesText = (n: number) => (n === 1 ? '1 like' : `${n} likes`);

export const ANONYMOUS_NAME = 'Anonymous Beer Lover';

/** The name shown for a post's author in feeds: anonymous posts never show one. */
export function authorName(post: { isAnonymous: boolean; username: string | null }): string {
  if (post.isAnonymous) return ANONYMOUS_NAME;
  return post.username || 'Beer Lover';
}

/** Own profile: the username, else the e-mail's local part, else 'Beer Lover'. */
export function ownDisplayName(username: string | null | undefined, email: string | null | undefined): string {
  if (username) return username;
  const local = email?.split('@')[0];
  return local || 'Beer Lover';
}

export const initialOf = (name: string) => name.trim().charAt(0).toUpperCase() || '?';

export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** The photo's alt text: the author's description, else one made from the caption (never the file name). */
export function photoAlt(post: { altText: string; caption: string; isAnonymous: boolean; username: string | null }): string {
  if (post.altText) return post.altText;
  return post.caption ? `Photo: ${post.caption}` : `Photo shared by ${authorName(post)}`;
}

/** A size as people read it (one definition, shared with the server's quota messages). */
export { readableBytes } from '@server/contract/format';
