import { badRequest } from '../kernel/errors.js';
import { ALT_TEXT_MAX_LENGTH, CAPTION_MAX_LENGTH } from '../kernel/limits.js';
import { cleanText } from '../kernel/text.js';

/**
 * A post's caption as stored, the same when posting (media/media-service.ts) and when editing
 * (posts/post-edits-routes.ts): at most CAPTION_MAX_LENGTH characters as sent, cleaned (kernel/text.ts),
 * not blank.
 */
export function cleanCaption(raw: string): string {
  if (raw.length > CAPTION_MAX_LENGTH) {
    throw badRequest(`The caption is too long: at most ${CAPTION_MAX_LENGTH} characters (it has ${raw.length}).`);
  }
  // Control and hidden characters are dropped and marks limited, as in comments (kernel/text.ts).
  const caption = cleanText(raw);
  if (!caption) throw badRequest('The caption cannot be blank.');
  return caption;
}

/** A photo's description as stored: cleaned like every text (kernel/text.ts), at most ALT_TEXT_MAX_LENGTH characters. */
export function cleanAltText(raw: string | undefined): string {
  if (raw === undefined) return '';
  const text = cleanText(raw);
  if (Array.from(text).length > ALT_TEXT_MAX_LENGTH) {
    throw badRequest(`The photo's description is too long: at most ${ALT_TEXT_MAX_LENGTH} characters.`);
  }
  return text;
}
