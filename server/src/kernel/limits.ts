/**
 * Lengths the API enforces on user text, in characters. The web app reads them from
 * /config.json (web/public-config.ts) rather than keeping copies.
 */
export const CAPTION_MAX_LENGTH = 2200;
export const COMMENT_MAX_LENGTH = 500;
/** A photo's description for people who cannot see it (posts.alt_text). */
export const ALT_TEXT_MAX_LENGTH = 1500;
/** Photos in one post: an album holds 1 to this many (docs/api.md, "Albums"). */
export const ALBUM_MAX_PHOTOS = 10;
/** A sensitive post's warning, shown over its blurred photo (posts.content_warning; docs/api.md, "Content warnings"). */
export const CONTENT_WARNING_MAX_LENGTH = 100;
/** A report's note, an operator's reason, and the text of a report forwarded to another server or received from one (moderation/, federation/flags.ts). */
export const NOTE_MAX_LENGTH = 500;
