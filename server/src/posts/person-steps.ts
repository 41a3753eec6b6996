import type Database from 'better-sqlite3';
import type { PersonSteps } from '../kernel/person-steps.js';
import { blurKey, displayKey, mediumKey, thumbKey } from '../kernel/storage/media-keys.js';

/** A person's posts, for account removal and suspension (kernel/person-steps.ts). */
export function postsPersonSteps(sqlite: Database.Database): PersonSteps {
  // An album's other photos (post_photos) too: every processed image the person's posts hold.
  const images = sqlite.prepare<[number, number], { key: string; medium: number }>(
    `SELECT media_key AS key, medium_width > 0 AS medium FROM posts WHERE user_id = ?
     UNION ALL SELECT f.media_key, f.medium_width > 0 FROM posts p JOIN post_photos f ON f.post_id = p.id WHERE p.user_id = ? AND p.photo_count > 1`,
  );
  // A post marked sensitive has the server's blurred image too, under a key of its own (posts.blur_key).
  const blurred = sqlite.prepare<[number], string>('SELECT blur_key FROM posts WHERE user_id = ? AND blur_key IS NOT NULL').pluck();
  const count = sqlite.prepare<[number], number>('SELECT count(*) FROM posts WHERE user_id = ?').pluck();
  // Other people's likes and comments on them go along (ON DELETE CASCADE).
  const remove = sqlite.prepare<[number]>('DELETE FROM posts WHERE user_id = ?');
  // Hiding a post moves feed_epoch (migration 0009's trigger), so no feed shows it from the next request.
  const hide = sqlite.prepare<{ user: number; hidden: number }>('UPDATE posts SET hidden = @hidden WHERE user_id = @user');
  return {
    remove({ id }) {
      const files = images.all(id, id).flatMap(({ key, medium }) => [displayKey(key), thumbKey(key), ...(medium ? [mediumKey(key)] : [])]);
      for (const key of blurred.all(id)) files.push(blurKey(key));
      const posts = count.get(id) ?? 0;
      remove.run(id);
      return { files, posts };
    },
    hide: (user, hidden) => void hide.run({ user, hidden: hidden ? 1 : 0 }),
  };
}
