import { Link } from 'react-router-dom';
import { textParts } from '@server/contract/entities';
import styles from './rich-text.module.css';

interface RichTextProps {
  text: string;
  /** The usernames the server found this text naming (Post.mentions, Comment.mentions): only those link. */
  mentions: readonly string[];
}

/**
 * A caption or comment with its `#tags` linked to their pages and its `@names` to the profiles of
 * the people the server found (issue 47). The same parser as the server's
 * (server/src/contract/entities.ts), so a word links exactly where the server indexed it. React
 * elements only: the text is never read as HTML.
 */
export function RichText({ text, mentions }: RichTextProps) {
  const known = new Map(mentions.map((name) => [name.toLowerCase(), name]));
  return (
    <>
      {textParts(text).map((part, i) => {
        if (part.kind === 'tag') {
          return (
            <Link key={i} className={styles.link} to={`/app/tag/${encodeURIComponent(part.tag)}`}>
              {part.text}
            </Link>
          );
        }
        const username = part.kind === 'mention' ? known.get(part.username.toLowerCase()) : undefined;
        if (username !== undefined) {
          return (
            <Link key={i} className={styles.link} to={`/app/profile/${encodeURIComponent(username)}`}>
              {part.text}
            </Link>
          );
        }
        return part.text;
      })}
    </>
  );
}
