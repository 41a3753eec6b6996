import type Database from 'better-sqlite3';
import type { PersonSteps } from '../kernel/person-steps.js';
import { blurKey, displayKey, mediumKey, thumbKey } from '../kernel/storage/media-keys.js';

/** A person's posts, for account removal and suspension (kernel/person-steps.ts). */
export function postsPersonSteps(sqlite: Database.Database): PersonSteps {
  // One read: each post's image (with its blurred one, posts.blur_key, when marked sensitive) and
  // an album's other photos (post_photos), every processed image the person's posts hold.
  const images = sqlite.prepare<[number, number], { key: string; medium: number; blur: string | null; post: number }>(
    `SELECT media_key AS key, medium_width > 0 AS medium, blur_key AS blur, 1 AS post FROM posts WHERE user_id = ?
     UNION ALL SELECT f.media_key, f.medium_width > 0, NULL, 0 FROM posts p JOIN post_photos f ON f.post_id = p.id WHERE p.user_id = ? AND p.photo_count > 1`,
  );
  // Other people's likes and comments on them go along (ON DELETE CASCADE).
  const remove = sqlite.prepare<[number]>('DELETE FROM posts WHERE user_id = ?');
  // Hiding a post moves feed_epoch (migration 0009's trigger), so no feed shows it from the next request.
  const hide = sqlite.prepare<{ user: number; hidden: number }>('UPDATE posts SET hidden = @hidden WHERE user_id = @user');
  return {
    remove({ id }) {
      const rows = images.all(id, id);
      const files = rows.flatMap(({ key, medium, blur }) => [displayKey(key), thumbKey(key), ...(medium ? [mediumKey(key)] : []), ...(blur ? [blurKey(blur)] : [])]);
      const posts = rows.filter((r) => r.post === 1).length;
      remove.run(id);
      return { files, posts };
    },
    hide: (user, hidden) => void hide.run({ user, hidden: hidden ? 1 : 0 }),
  };
}
