import unhomoglyph from 'unhomoglyph';

/**
 * Text people write (captions, comments) and names people choose, made to show
 * what it says: Unicode NFC; no bidirectional controls (a right-to-left
 * override makes "gpj.exe" read as "exe.jpg"); no invisible characters; at most
 * MAX_MARKS combining marks on one letter ("Zalgo" text spilling over other
 * lines). The joiners some scripts and emoji need are kept where they join.
 */

/** Embeddings, overrides, isolates and the direction marks (LRM, RLM, ALM). */
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
/** Zero-width space, word joiner, invisible operators, BOM, Mongolian vowel separator, soft hyphen, Hangul fillers. */
const INVISIBLE = /[\u200B\u2060-\u2064\uFEFF\u180E\u00AD\u115F\u1160\u3164\uFFA0]/g;
/** ZWJ is kept inside emoji sequences (👨‍👩‍👧), ZWNJ between letters (Persian, Indic scripts); elsewhere they hide. */
// eslint-disable-next-line no-misleading-character-class -- single code points on purpose: the skin-tone modifiers and U+FE0F that end an emoji
const STRAY_ZWJ = /(?<![\p{Extended_Pictographic}\uFE0F\u{1F3FB}-\u{1F3FF}])\u200D|\u200D(?!\p{Extended_Pictographic})/gu;
const STRAY_ZWNJ = /(?<![\p{L}\p{M}])\u200C|\u200C(?![\p{L}\p{M}])/gu;
export const MAX_MARKS = 4;
const MARK_RUN = new RegExp(`(\\p{M}{${MAX_MARKS}})\\p{M}+`, 'gu');
/** Anything the cleaning would touch (fast path: most text has none of it). */
// eslint-disable-next-line no-misleading-character-class -- single combining marks on purpose: this looks for them one by one
const SUSPECT = /[\u0300-\u036F\u0483-\u0489\u0591-\u05C7\u061C\u0610-\u061A\u064B-\u065F\u00AD\u115F\u1160\u180E\u1AB0-\u1AFF\u1DC0-\u1DFF\u200B-\u200F\u202A-\u202E\u2060-\u2069\u20D0-\u20FF\u3164\uFE20-\uFE2F\uFEFF\uFFA0]/;

/**
 * Control characters other than newline and tab, and the Unicode line and paragraph
 * separators: never kept in captions or comments (they break layouts and logs).
 */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what this matches
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/g;

/**
 * User text as stored (captions, comments, names from a provider): line endings
 * unified, control characters dropped, hidden characters stripped, marks limited,
 * NFC, trimmed.
 */
export function cleanText(raw: string): string {
  return showWhatItSays(raw.replace(/\r\n?/g, '\n').replace(CONTROL_CHARACTERS, '')).trim();
}

/** Hidden characters stripped, marks limited, NFC. */
function showWhatItSays(text: string): string {
  const nfc = text.normalize('NFC');
  if (!SUSPECT.test(nfc) && !/\p{M}{5}/u.test(nfc)) return nfc;
  return nfc
    .replace(BIDI, '')
    .replace(INVISIBLE, '')
    .replace(STRAY_ZWJ, '')
    .replace(STRAY_ZWNJ, '')
    .replace(MARK_RUN, '$1')
    .normalize('NFC');
}

/** True when a name carries a bidirectional control or an invisible character (joiners included). */
export function hasHiddenCharacters(name: string): boolean {
  return /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u061C\u2060-\u2064\uFEFF\u180E\u00AD\u115F\u1160\u3164\uFFA0]/.test(name);
}

/**
 * The confusable skeleton of a name (Unicode TR39 section 4: NFD, each character
 * replaced by its prototype from confusables.txt, NFD again), lower-cased so it
 * pairs with our case-insensitive names: "aIice", "a1ice" and "alice" share
 * one. The prototypes come from the unhomoglyph package (confusables.txt data).
 */
export function confusableSkeleton(name: string): string {
  return unhomoglyph(name.normalize('NFD')).normalize('NFD').toLowerCase();
}

/** At most `max` characters (code points): another server's texts are cut to our limits, not refused (federation). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : Array.from(text).slice(0, max).join('');
}
