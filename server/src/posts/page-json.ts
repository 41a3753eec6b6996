import { LruMap } from '../kernel/lru.js';
import { blurUrl, mediaUrls, mediumUrl } from '../kernel/storage/media-keys.js';
import { formatCursor } from '../kernel/paging.js';
import type { PhotoView } from '../contract/api-shapes.js';
import { authorHidden, commenterHidden, pictureUrl, type CommentRow, type CommentView, type PhotoRow, type PostPage, type PostRow, type PostView } from '../kernel/views.js';

/** Posts and comments whose unchanging JSON is kept per connection, least recently shown dropped first. */
export const POST_FRAGMENTS_MAX = 10_000;
export const COMMENT_FRAGMENTS_MAX = 20_000;

interface PostFragment {
  // What the text was made from, compared with the row each time (exact without any invalidation).
  mediaKey: string;
  caption: string;
  altText: string;
  isAnonymous: number;
  width: number;
  height: number;
  mediumWidth: number;
  createdAt: number;
  editedAt: number | null;
  mentions: string | null;
  /** PostRow.sensitivity without its viewer's flag (its first character); null: not sensitive. */
  sensitivity: string | null;
  /** `{"postid":…,"s3Url":…,"thumbnailUrl":…,"width":…,"height":…,"mediumUrl":…,"mediumWidth":…,"caption":…,"altText":…,"isAnonymous":…,"created_at":…,"editedAt":…` */
  head: string;
  /** `,"cursor":"…","mentions":[…]` (an album's `,"photos":[…]` and `}` follow: the schema writes optional fields last) */
  tail: string;
  /** A sensitive post's head for viewers who get the blurred image: the photo's URLs and description left out. */
  blurredHead?: string;
  /** A sensitive post's `,"sensitive":{"warning":…,"blurred":` (the flag and `}}` follow). */
  sensitiveField?: string;
}

interface CommentFragment {
  content: string;
  createdAt: number;
  mentions: string | null;
  /** `,"content":…,"created_at":"…","userid":` */
  middle: string;
  /** `,"mentions":[…]}` */
  end: string;
}

/**
 * Makes V8 join a string built by `+` into one piece now (reading a character does), so a kept
 * fragment is copied as one piece into every page that uses it instead of walked part by part
 * each time: the page's final copy took 10 µs a reference page, 5 µs with this.
 */
const flatten = (s: string) => void s.charCodeAt(0);
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `"name":` for each field of a shape (contract/api-shapes.ts), typed by it: a field renamed
 * there fails the typecheck here, and so does one added there but not written here.
 */
function jsonKeys<T>() {
  return <K extends keyof T & string>(...names: K[]) =>
    Object.fromEntries(names.map((n) => [n, `"${n}":`])) as Record<K, string> & ([Exclude<keyof T, K>] extends [never] ? unknown : { missing: Exclude<keyof T, K> });
}
const P = jsonKeys<PostView>()(
  'postid', 's3Url', 'thumbnailUrl', 'width', 'height', 'mediumUrl', 'mediumWidth', 'caption', 'altText', 'isAnonymous', 'created_at', 'editedAt',
  'username', 'profilePictureUrl', 'isOwner', 'likeCount', 'likedByUser', 'commentCount', 'comments', 'cursor', 'photos', 'mentions', 'sensitive',
);
const F = jsonKeys<PhotoView>()('s3Url', 'thumbnailUrl', 'width', 'height', 'mediumUrl', 'mediumWidth', 'altText');
const C = jsonKeys<CommentView>()('comment_id', 'username', 'content', 'created_at', 'userid', 'isOwner', 'cursor', 'mentions');
// Nothing may be missing: a field of the shape the writer does not write is a type error here.
const _complete: [typeof P, typeof C, typeof F] extends [{ missing: unknown }, unknown, unknown] | [unknown, { missing: unknown }, unknown] | [unknown, unknown, { missing: unknown }] ? never : true = true;
void _complete;

/** One photo of a post as the Photo schema's JSON text (contract/api-shapes.ts). */
function photoJson(p: { mediaKey: string; width: number; height: number; mediumWidth: number; altText: string }): string {
  const { s3Url, thumbnailUrl } = mediaUrls(p.mediaKey);
  return (
    `{${F.s3Url}${asciiJson(s3Url)},${F.thumbnailUrl}${asciiJson(thumbnailUrl)},${F.width}${p.width},${F.height}${p.height},` +
    `${F.mediumUrl}${asciiJson(mediumUrl(p.mediaKey, p.mediumWidth))},${F.mediumWidth}${p.mediumWidth},${F.altText}${asciiJson(p.altText)}}`
  );
}

const NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII_ALL = /[\u0080-\uffff]/g;
const escapeUnit = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** posts.mentions or comments.mentions (JSON.stringify's array of usernames, or null) as the answer's list, in ASCII. */
const mentionsJson = (json: string | null) => (json === null ? '[]' : NON_ASCII.test(json) ? json.replace(NON_ASCII_ALL, escapeUnit) : json);

/**
 * A string as JSON text in ASCII only: what JSON.stringify gives, with every
 * character past U+007F written as a \uXXXX escape (an emoji as its two
 * surrogates), which every JSON parser reads back as the same text.
 */
export function asciiJson(value: string | null): string {
  const text = JSON.stringify(value);
  return NON_ASCII.test(text) ? text.replace(NON_ASCII_ALL, escapeUnit) : text;
}

/**
 * The one writer of the Post shape (contract/api-shapes.ts): feed pages, profiles' pages
 * (feeds/feed-routes.ts) and a new post (posts/post-writes-service.ts). A page of posts as the JSON
 * text the `Posts` schema gives for the API's view of them, in ASCII only: the same values
 * in the same order (a test, test/domain/page-json.test.ts, holds them
 * equal for owners, strangers, anonymous posts, anonymous authors' comments and
 * text that needs escaping), at a fraction of the cost. Profiled under the
 * bench's feed load, building view objects, serializing them and encoding the
 * text to UTF-8 in a buffer of its own was a third of a read worker's time per
 * page. ASCII text encodes to UTF-8 as a plain copy (a read worker's bytes for
 * the request thread; inline, Fastify writes the text as it is).
 *
 * What never changes about a post or a comment (ids, image, caption, date,
 * cursor) is written once and kept, and checked against the row it came from
 * on every use, so a kept fragment never shows what the database no longer
 * holds. Who wrote it, likes and counts are written fresh for each viewer, by
 * the anonymity rules of views.ts.
 */
export function createPageWriter(postsMax = POST_FRAGMENTS_MAX, commentsMax = COMMENT_FRAGMENTS_MAX) {
  const posts = new LruMap<number, PostFragment>(postsMax);
  const comments = new LruMap<number, CommentFragment>(commentsMax);

  function postFragment(r: PostRow): PostFragment {
    const kept = posts.get(r.id);
    if (
      kept &&
      kept.mediaKey === r.mediaKey &&
      kept.caption === r.caption &&
      kept.altText === r.altText &&
      kept.isAnonymous === r.isAnonymous &&
      kept.width === r.width &&
      kept.height === r.height &&
      kept.mediumWidth === r.mediumWidth &&
      kept.createdAt === r.createdAt &&
      kept.editedAt === r.editedAt &&
      kept.mentions === r.mentions &&
      (r.sensitivity === null
        ? kept.sensitivity === null
        : kept.sensitivity !== null && r.sensitivity.length === kept.sensitivity.length + 1 && r.sensitivity.endsWith(kept.sensitivity))
    ) {
      return kept;
    }
    const { s3Url, thumbnailUrl } = mediaUrls(r.mediaKey);
    const fragment: PostFragment = {
      mediaKey: r.mediaKey,
      caption: r.caption,
      altText: r.altText,
      isAnonymous: r.isAnonymous,
      width: r.width,
      height: r.height,
      mediumWidth: r.mediumWidth,
      createdAt: r.createdAt,
      editedAt: r.editedAt,
      mentions: r.mentions,
      sensitivity: r.sensitivity === null ? null : r.sensitivity.slice(1),
      head:
        `{${P.postid}${r.id},${P.s3Url}${asciiJson(s3Url)},${P.thumbnailUrl}${asciiJson(thumbnailUrl)},${P.width}${r.width},${P.height}${r.height},` +
        `${P.mediumUrl}${asciiJson(mediumUrl(r.mediaKey, r.mediumWidth))},${P.mediumWidth}${r.mediumWidth},` +
        `${P.caption}${asciiJson(r.caption)},${P.altText}${asciiJson(r.altText)},${P.isAnonymous}${r.isAnonymous === 1},${P.created_at}"${iso(r.createdAt)}",` +
        `${P.editedAt}${r.editedAt === null ? 'null' : `"${iso(r.editedAt)}"`}`,
      tail: `,${P.cursor}"${formatCursor(r.createdAt, r.id)}",${P.mentions}${mentionsJson(r.mentions)}`,
    };
    if (fragment.sensitivity !== null) {
      const [warning, blurKey] = JSON.parse(fragment.sensitivity) as [string, string | null];
      fragment.sensitiveField = `,${P.sensitive}{"warning":${asciiJson(warning)},"blurred":`;
      flatten(fragment.sensitiveField);
      if (blurKey !== null) {
        // docs/api.md, "Content warnings": the blurred image in every photo field, no medium
        // rendition and no description, so nothing in the answer leads to the photo itself.
        const blurred = asciiJson(blurUrl(blurKey));
        fragment.blurredHead =
          `{${P.postid}${r.id},${P.s3Url}${blurred},${P.thumbnailUrl}${blurred},${P.width}${r.width},${P.height}${r.height},` +
          `${P.mediumUrl}null,${P.mediumWidth}0,` +
          `${P.caption}${asciiJson(r.caption)},${P.altText}"",${P.isAnonymous}${r.isAnonymous === 1},${P.created_at}"${iso(r.createdAt)}",` +
          `${P.editedAt}${r.editedAt === null ? 'null' : `"${iso(r.editedAt)}"`}`;
        flatten(fragment.blurredHead);
      }
    }
    flatten(fragment.head);
    flatten(fragment.tail);
    posts.set(r.id, fragment);
    return fragment;
  }

  function commentFragment(c: CommentRow): CommentFragment {
    const kept = comments.get(c.id);
    if (kept && kept.content === c.content && kept.createdAt === c.createdAt && kept.mentions === c.mentions) return kept;
    const fragment: CommentFragment = {
      content: c.content,
      createdAt: c.createdAt,
      mentions: c.mentions,
      middle: `,${C.content}${asciiJson(c.content)},${C.created_at}"${iso(c.createdAt)}",${C.userid}`,
      end: `,${C.mentions}${mentionsJson(c.mentions)}}`,
    };
    flatten(fragment.middle);
    flatten(fragment.end);
    comments.set(c.id, fragment);
    return fragment;
  }

  function post(r: PostRow, list: readonly CommentRow[], viewer: number, album: readonly PhotoRow[] = []): string {
    const fragment = postFragment(r);
    const hidden = authorHidden(r, viewer);
    // A sensitive post without its blurred image (never so: both are set in one transaction) is shown, not withheld blank.
    const blurred = r.sensitivity !== null && r.sensitivity.charCodeAt(0) === 48 /* '0' */ && fragment.blurredHead !== undefined;
    let out =
      (blurred ? fragment.blurredHead! : fragment.head) +
      `,${P.username}${hidden ? 'null' : asciiJson(r.username)}` +
      `,${P.profilePictureUrl}${hidden ? 'null' : asciiJson(pictureUrl(r.pictureKey))}` +
      `,${P.isOwner}${r.userId === viewer},${P.likeCount}${r.likeCount},${P.likedByUser}${r.liked === 1},${P.commentCount}${r.commentCount},${P.comments}[`;
    for (let j = 0; j < list.length; j++) {
      const c = list[j]!;
      const anonymous = commenterHidden(c, r, viewer);
      const fragment = commentFragment(c);
      out +=
        `${j > 0 ? ',' : ''}{${C.comment_id}${c.id},${C.username}${anonymous ? 'null' : asciiJson(c.username)}` +
        fragment.middle +
        `${anonymous ? 'null' : c.userId},${C.isOwner}${c.userId === viewer},${C.cursor}"${formatCursor(c.createdAt, c.id)}"` +
        fragment.end;
    }
    out += ']' + fragment.tail;
    // An album's photos: few posts are albums, so they are written for each use, not kept. A
    // blurred album shows its first photo blurred only: the rest come with "Show photo".
    if (album.length > 0 && !blurred) {
      out += `,${P.photos}[${photoJson(r)}`;
      for (const photo of album) out += ',' + photoJson(photo);
      out += ']';
    }
    if (fragment.sensitiveField !== undefined) out += `${fragment.sensitiveField}${blurred}}`;
    return out + '}';
  }

  /** A page of posts (the Posts schema's JSON); `.post` writes one (the Post schema's). */
  function write(page: PostPage, viewer: number): string {
    let out = '[';
    for (let i = 0; i < page.rows.length; i++) {
      const r = page.rows[i]!;
      out += (i > 0 ? ',' : '') + post(r, page.comments.get(r.id) ?? [], viewer, page.photos?.get(r.id));
    }
    return out + ']';
  }
  return Object.assign(write, { post });
}

export type PageWriter = ReturnType<typeof createPageWriter>;
