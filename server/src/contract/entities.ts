// Hashtags and mentions in a caption or comment, found the same way on both sides: the server
// stores what this finds (hashtags/, social/mentions-*), and the web app links what this finds
// (web/src/components/rich-text.tsx), so a word is a link exactly when the server indexed it.
// Like format.ts, a pure value the web app may import (eslint.config.js, web/vite.config.ts):
// it imports nothing.

/** Longest tag, in characters after normalisation (issue 47). */
export const TAG_MAX = 100;

/** A tag's characters: letters (with their combining marks) and digits of any script, and `_`. */
const TAG_BODY = /^[\p{L}\p{M}\p{N}_]+$/u;

/**
 * `#` or `@` starts a tag or a mention only at the start or after a character that cannot be part
 * of a word, a URL path or an address: so `page#top`, `a/#b`, `name@host` and `x&#35;` are text.
 * `＃` and `＠` (full-width, as Japanese keyboards type them) count too, as NFKC makes them `#`/`@`.
 */
const ENTITY = /(?<![\p{L}\p{M}\p{N}_&/#@＃＠.\-:])(?:([#＃])([\p{L}\p{M}\p{N}_]+)|([@＠])([\p{L}\p{M}\p{N}_.-]+)(?:@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+))?)/gu;

/** URLs (with a scheme or starting www.) and e-mail addresses: nothing inside them is a tag or mention. */
const SKIPPED = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"]+|[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/giu;

export type TextPart =
  | { kind: 'text'; text: string }
  /** `tag`: the tag as stored and in its page's path (normalizeTag). */
  | { kind: 'tag'; text: string; tag: string }
  /** A local name (`@friend`): `username` as written, matched without case. */
  | { kind: 'mention'; text: string; username: string }
  /** A person on another server (`@name@host`): plain text until federation exists. */
  | { kind: 'remote'; text: string; username: string; host: string };

/**
 * A tag as stored and compared: NFKC (so `#ｂｅｅｒ` is `#beer`) then lower case without a
 * locale, or null when it is not a tag: other characters, empty, digits only (`#1`), or past TAG_MAX.
 */
export function normalizeTag(raw: string): string | null {
  const tag = raw.normalize('NFKC').toLowerCase();
  if (!TAG_BODY.test(tag) || [...tag].length > TAG_MAX || /^\p{N}+$/u.test(tag)) return null;
  return tag;
}

/** The start of a tag as a search types it (`#sho`, `Sho`): normalised as tags are, or null when no tag could start so. */
export function normalizeTagPrefix(raw: string): string | null {
  const prefix = raw.normalize('NFKC').toLowerCase().replace(/^#/, '');
  return TAG_BODY.test(prefix) && [...prefix].length <= TAG_MAX ? prefix : null;
}

/** A name as written after `@`, less the sentence's full stops and dashes at its end ("thanks @ale."). */
const trimName = (name: string) => name.replace(/[.-]+$/, '');

/** The text split into plain text, tags and mentions, in order; joined back, the parts are the text. */
export function textParts(text: string): TextPart[] {
  const skipped: Array<[number, number]> = [];
  for (const m of text.matchAll(SKIPPED)) skipped.push([m.index, m.index + m[0].length]);
  const parts: TextPart[] = [];
  let at = 0;
  const plain = (end: number) => {
    if (end > at) parts.push({ kind: 'text', text: text.slice(at, end) });
  };
  for (const m of text.matchAll(ENTITY)) {
    const start = m.index;
    if (skipped.some(([s, e]) => start >= s && start < e)) continue;
    let found: TextPart | null = null;
    if (m[2] !== undefined) {
      const tag = normalizeTag(m[2]);
      if (tag !== null) found = { kind: 'tag', text: m[0], tag };
    } else if (m[4] !== undefined) {
      const username = trimName(m[4]);
      if (username.length > 0 && m[5] !== undefined && username === m[4]) {
        found = { kind: 'remote', text: `${m[3]}${username}@${m[5]}`, username, host: m[5].toLowerCase() };
      } else if (username.length > 0) {
        found = { kind: 'mention', text: `${m[3]}${username}`, username: username.normalize('NFKC') };
      }
    }
    if (found === null) continue;
    plain(start);
    parts.push(found);
    at = start + found.text.length;
  }
  plain(text.length);
  return parts;
}

/** The distinct tags of a text, in the order they first appear. */
export function tagsOf(text: string): string[] {
  return [...new Set(textParts(text).flatMap((p) => (p.kind === 'tag' ? [p.tag] : [])))];
}
