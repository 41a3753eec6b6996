/**
 * Control characters other than newline and tab, and the Unicode line and paragraph
 * separators: never kept in captions or comments (they break layouts and logs).
 */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what this matches
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/g;

/** User text as stored: line endings unified, control characters dropped, trimmed. */
export function cleanText(raw: string): string {
  return raw.replace(/\r\n?/g, '\n').replace(CONTROL_CHARACTERS, '').trim();
}
