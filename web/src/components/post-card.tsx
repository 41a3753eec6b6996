import { memo, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import buttons from '@/components/button.module.css';
import { CloseIcon, CommentIcon, FlagIcon, HeartIcon, MoreIcon, PencilIcon, ShareIcon, TrashIcon } from '@/components/icons';
import { EditAltTextDialog } from '@/components/alt-text';
import { PhotoCarousel } from '@/components/photo-carousel';
import { EditPostDialog, editedLabel, PostHistoryDialog } from '@/components/post-edit';
import { ReportDialog } from '@/components/report-dialog';
import { RichText } from '@/components/rich-text';
import { SensitiveCover, SensitiveNote } from '@/components/sensitive-cover';
import { ApiError } from '@/lib/api/client';
import { blockAuthorOf } from '@/lib/api/moderation';
import { deletePost, type Post, type PostEdit } from '@/lib/api/posts';
import { addComment, type Comment, deleteComment, getComments, getLikes, like, unlike } from '@/lib/api/social';
import { getConfig } from '@/lib/config';
import { authorName, likesText, photoAlt, postTime } from '@/lib/format';
import { frameRatio, photoSizes, photoSrcSet } from '@/lib/photo-frame';
import { errorText, useSubmit } from '@/lib/use-submit';
import styles from './post-card.module.css';

interface PostCardProps {
  post: Post;
  onChange: (post: Post) => void;
  onDelete: (postId: number) => void;
  /** After "Block": the list drops the author's posts (by default only this one). */
  onAuthorBlocked?: (post: Post) => void;
  /** The first cards on screen load their image at once; the rest lazily. */
  eager?: boolean;
  /** The first photo of a feed (the page's largest paint): fetched before anything else. */
  priority?: boolean;
}

/**
 * A post in a feed. Memoised: a feed reveals its cards a few at a time (lib/use-revealed.ts)
 * and each step renders the feed again; the cards already shown, whose props are the same,
 * are skipped instead of rendered again (a page of 10 cards: 10 card renders, not 35).
 */
export const PostCard = memo(function PostCard({ post, onChange, onDelete, onAuthorBlocked, eager = false, priority = false }: PostCardProps) {
  const name = authorName(post);
  const posted = postTime(post.created_at);
  const captionPrefix = post.isAnonymous ? 'Anonymous' : name;
  const profileHref = post.isAnonymous || !post.username ? null : post.isOwner ? '/app/account' : `/app/profile/${encodeURIComponent(post.username)}`;
  const liking = useSubmit(async (err) => {
    console.error(err instanceof Error ? err.message : err);
    // Out of step (liked in another tab, say): take the server's word for it.
    try {
      onChange({ ...post, ...(await getLikes(post.postid)) });
    } catch (e) {
      console.error(`Likes fetch failed: ${e instanceof ApiError ? e.status : e}`);
    }
  });
  const [comment, setComment] = useState('');
  const sending = useSubmit((err) => console.error(err instanceof Error ? err.message : err));
  const [allComments, setAllComments] = useState<Comment[] | null>(null);
  const [shared, setShared] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const comments = allComments ?? post.comments;
  const [reporting, setReporting] = useState<{ kind: 'post' | 'comment'; id: number } | null>(null);
  const [showAlt, setShowAlt] = useState(false);
  const [editingAlt, setEditingAlt] = useState(false);
  const [editing, setEditing] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  const altId = useId();
  const applyEdit = (edit: PostEdit) =>
    onChange({
      ...post,
      caption: edit.caption,
      altText: edit.altText,
      editedAt: edit.editedAt,
      mentions: edit.mentions ?? post.mentions,
      // An album's answer carries every description (docs/api.md, "Editing a post").
      photos: post.photos?.map((photo, i) => ({ ...photo, altText: edit.photos?.[i]?.altText ?? (i === 0 ? edit.altText : photo.altText) })),
      // Absent: no longer marked sensitive (docs/api.md, "Content warnings"); the author sees it unblurred either way.
      sensitive: edit.sensitive,
    });
  // A sensitive post someone else has not chosen to see: the server's blurred image and "Show photo".
  const blurred = post.sensitive?.blurred === true;
  const mediaRef = useRef<HTMLDivElement>(null);
  // An album shows one photo at a time; the ALT badge is that photo's (a post of one: the post's own).
  const [photoIndex, setPhotoIndex] = useState(0);
  const album = post.photos && post.photos.length > 1 ? post.photos : null;
  const shownAlt = album ? (album[photoIndex]?.altText ?? '') : post.altText;

  async function toggleLike() {
    await liking.run(async () => {
      const state = post.likedByUser ? await unlike(post.postid) : await like(post.postid);
      onChange({ ...post, ...state });
    });
  }

  async function submitComment(e: React.FormEvent) {
    e.preventDefault();
    const text = comment.trim();
    if (!text) return;
    await sending.run(async () => {
      const created = await addComment(post.postid, text);
      setComment('');
      if (allComments) setAllComments([...allComments, created]);
      onChange({ ...post, comments: [...post.comments, created], commentCount: post.commentCount + 1 });
    });
  }

  async function removeComment(c: Comment) {
    if (!window.confirm('Delete this comment?')) return;
    try {
      await deleteComment(c.comment_id);
      if (allComments) setAllComments(allComments.filter((x) => x.comment_id !== c.comment_id));
      onChange({
        ...post,
        comments: post.comments.filter((x) => x.comment_id !== c.comment_id),
        commentCount: Math.max(0, post.commentCount - 1),
      });
    } catch (err) {
      console.error(err instanceof Error ? err.message : err);
    }
  }

  async function showAllComments() {
    try {
      setAllComments(await getComments(post.postid));
    } catch (e) {
      console.error(`Comments fetch failed: ${e instanceof ApiError ? e.status : e}`);
    }
  }

  async function removePost() {
    if (!window.confirm('Delete this post? This cannot be undone.')) return;
    try {
      await deletePost(post.postid);
      onDelete(post.postid);
    } catch (err) {
      console.error(err instanceof Error ? err.message : err);
    }
  }

  async function blockAuthor() {
    // docs/api.md, "Blocks and anonymity": a block made on an anonymous post hides that post only.
    const question = post.isAnonymous
      ? "Block the author of this post? You will not see this post again, and its author can no longer follow you or like or comment on your posts. You are not told who they are, and their other posts stay: hiding them would tell you."
      : `Block ${name}? You will not see each other's posts or comments (anonymous posts stay as they are, so they never tell whose they are), and neither can follow, like or comment on the other's posts.`;
    if (!window.confirm(question)) return;
    try {
      await blockAuthorOf(post.postid);
      (onAuthorBlocked ?? ((p: Post) => onDelete(p.postid)))(post);
    } catch (err) {
      window.alert(errorText(err, 'Blocking failed. Please try again.'));
    }
  }

  async function share() {
    const text = `${captionPrefix}: ${post.caption}`;
    try {
      if (navigator.share) await navigator.share({ title: 'Shower Beer', text, url: window.location.origin });
      else {
        await navigator.clipboard.writeText(`${text}\n${window.location.origin}`);
        setShared(true);
        setTimeout(() => setShared(false), 2000);
      }
    } catch {
      /* dismissed */
    }
  }

  return (
    <article className={styles.card} aria-label={`Post by ${name}`}>
      <header className={styles.header}>
        <Avatar name={post.isAnonymous ? null : name} pictureUrl={post.isAnonymous ? null : post.profilePictureUrl} size={40} />
        <div className={styles.who}>
          {profileHref ? (
            <Link to={profileHref} className={styles.name}>
              {name}
            </Link>
          ) : (
            <span className={styles.name}>{name}</span>
          )}
          <span className={styles.date}>
            <time dateTime={post.created_at} title={posted.full}>
              {posted.text}
            </time>
            {post.editedAt && (
              <>
                {' · '}
                {/* The earlier versions, for anyone who sees the post (docs/api.md, "Editing a post"). */}
                <button type="button" className={styles.edited} onClick={() => setShowHistory(true)} title="See the earlier versions">
                  <time dateTime={post.editedAt} title={postTime(post.editedAt).full}>
                    {editedLabel(post.editedAt)}
                  </time>
                </button>
              </>
            )}
          </span>
        </div>
        {post.isOwner ? (
          <>
            <button type="button" className={`${buttons.round} ${styles.iconButton} ${styles.editButton}`} onClick={() => setEditing(true)} aria-label="Edit post" title="Edit post">
              <PencilIcon size={20} />
            </button>
            <button type="button" className={`${buttons.round} ${styles.iconButton}`} onClick={removePost} aria-label="Delete post" title="Delete post">
              <TrashIcon size={20} />
            </button>
          </>
        ) : (
          <PostMenu
            blockLabel={post.isAnonymous ? 'Block the author of this post' : `Block ${name}`}
            onReport={() => setReporting({ kind: 'post', id: post.postid })}
            onBlock={blockAuthor}
          />
        )}
      </header>

      {/* The frame takes the photo's shape within 4:5 to 1.91:1 (lib/photo-frame.ts); the photo fills it. */}
      <div
        ref={mediaRef}
        className={styles.media}
        style={album ? undefined : { aspectRatio: frameRatio(post.width, post.height) }}
        // Focus lands here once "Show photo" has done its work, so keyboard users stay in place.
        tabIndex={-1}
      >
        {blurred ? (
          <>
            {/* The server's blurred image: it shows nothing, so it is described by the cover, not here. */}
            <img src={post.s3Url} width={post.width || undefined} height={post.height || undefined} alt="" loading={eager ? 'eager' : 'lazy'} />
            <SensitiveCover
              post={post}
              onRevealed={(photo) => {
                onChange({ ...post, ...photo, sensitive: { warning: post.sensitive?.warning ?? '', blurred: false } });
                requestAnimationFrame(() => mediaRef.current?.focus());
              }}
            />
          </>
        ) : album ? (
          <PhotoCarousel
            photos={album}
            index={photoIndex}
            onIndexChange={(i) => {
              setPhotoIndex(i);
              setShowAlt(false);
            }}
            altOf={(photo, i) => photo.altText || `${photoAlt({ ...post, altText: '' })} (${i + 1} of ${album.length})`}
            eager={eager}
            priority={priority}
            onDoubleClick={() => !post.likedByUser && toggleLike()}
          />
        ) : (
          <img
            src={post.s3Url}
            srcSet={photoSrcSet(post)}
            sizes={post.mediumUrl ? photoSizes(post.width, post.height) : undefined}
            width={post.width || undefined}
            height={post.height || undefined}
            alt={photoAlt(post)}
            loading={eager ? 'eager' : 'lazy'}
            fetchPriority={priority ? 'high' : 'auto'}
            // The screen's largest paint: drawn in the same frame as the card, not a frame after it.
            decoding={priority ? 'sync' : 'async'}
            onDoubleClick={() => !post.likedByUser && toggleLike()}
          />
        )}
        {!blurred && shownAlt && (
          <button
            type="button"
            className={styles.altButton}
            aria-expanded={showAlt}
            aria-controls={altId}
            aria-label={showAlt ? 'Hide the photo description' : 'Show the photo description'}
            onClick={() => setShowAlt((v) => !v)}
          >
            {/* A small badge in a 44 × 44 px tap target (WCAG 2.5.5). */}
            <span className={styles.altBadge}>ALT</span>
          </button>
        )}
      </div>
      {post.sensitive && !blurred && <SensitiveNote warning={post.sensitive.warning} />}
      {shownAlt && showAlt && (
        <p id={altId} className={styles.altText}>
          <strong>Photo description:</strong> {shownAlt}
        </p>
      )}
      {/* The photo in view, by its place in the album (PATCH /api/post's photos, docs/api.md "Editing a post"). */}
      {post.isOwner && (
        <button type="button" className={styles.altEdit} onClick={() => setEditingAlt(true)}>
          {shownAlt ? 'Edit photo description' : 'Add a photo description'}
        </button>
      )}
      {editingAlt && (
        <EditAltTextDialog
          postId={post.postid}
          index={album ? photoIndex : 0}
          of={album?.length}
          current={shownAlt}
          onSaved={applyEdit}
          onClose={() => setEditingAlt(false)}
        />
      )}
      {editing && <EditPostDialog post={post} onSaved={applyEdit} onClose={() => setEditing(false)} />}
      {showHistory && <PostHistoryDialog postId={post.postid} onClose={() => setShowHistory(false)} />}

      <div className={styles.body}>
        <div className={styles.actions}>
          <button
            type="button"
            className={`${styles.action} ${post.likedByUser ? styles.liked : ''}`}
            onClick={toggleLike}
            // A toggle: the name stays "Like" and aria-pressed says whether you do. Busy is
            // aria-disabled, not disabled, so keyboard focus stays on the button.
            aria-disabled={liking.busy || undefined}
            aria-pressed={post.likedByUser}
            aria-label="Like"
          >
            <HeartIcon filled={post.likedByUser} />
            <span aria-hidden="true">{post.likeCount}</span>
          </button>
          <button
            type="button"
            className={styles.action}
            onClick={() => inputRef.current?.focus()}
            aria-label={`Comments: ${post.commentCount}`}
          >
            <CommentIcon />
            <span aria-hidden="true">{post.commentCount}</span>
          </button>
          <button type="button" className={styles.action} onClick={share} aria-label="Share">
            <ShareIcon />
            {shared && (
              <span className={styles.copied} aria-hidden="true">
                Copied!
              </span>
            )}
          </button>
        </div>
        {/* The button's name stays "Share": what it did is said here. */}
        <span role="status" className="visually-hidden">
          {shared ? 'Copied to the clipboard' : ''}
        </span>

        <p className={styles.likes}>{likesText(post.likeCount)}</p>
        <p className={styles.caption}>
          <strong>{captionPrefix}</strong> <RichText text={post.caption} mentions={post.mentions} />
        </p>

        {comments.length > 0 && (
          <ul className={styles.comments} aria-label="Comments">
            {comments.map((c) => (
              <li key={c.comment_id} className={styles.comment}>
                <p>
                  <strong>{c.username || 'User'}</strong> <RichText text={c.content} mentions={c.mentions} />
                </p>
                {c.isOwner ? (
                  <button
                    type="button"
                    className={styles.commentDelete}
                    onClick={() => removeComment(c)}
                    aria-label="Delete comment"
                    title="Delete comment"
                  >
                    <TrashIcon size={16} />
                  </button>
                ) : (
                  <button
                    type="button"
                    className={styles.commentReport}
                    onClick={() => setReporting({ kind: 'comment', id: c.comment_id })}
                    aria-label={`Report comment by ${c.username || 'User'}`}
                    title="Report comment"
                  >
                    <FlagIcon size={15} />
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
        {!allComments && post.commentCount > post.comments.length && (
          <button type="button" className={styles.more} onClick={showAllComments}>
            View all {post.commentCount} comments
          </button>
        )}

        <form className={styles.commentForm} onSubmit={submitComment}>
          <label htmlFor={inputId} className="visually-hidden">
            Add a comment
          </label>
          <input
            id={inputId}
            ref={inputRef}
            type="text"
            placeholder="Add a comment..."
            value={comment}
            maxLength={getConfig().limits.commentMaxLength}
            onChange={(e) => setComment(e.target.value)}
            autoComplete="off"
          />
          <button type="submit" disabled={!comment.trim() || sending.busy}>
            Post
          </button>
        </form>
      </div>
      {reporting && <ReportDialog kind={reporting.kind} id={reporting.id} onClose={() => setReporting(null)} />}
    </article>
  );
});

/** "More options" on someone else's post: report it, or block its author. */
function PostMenu({ blockLabel, onReport, onBlock }: { blockLabel: string; onReport: () => void; onBlock: () => void }) {
  const [open, setOpen] = useState(false);
  const wrapRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!wrapRef.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const choose = (action: () => void) => () => {
    setOpen(false);
    // The menu item goes with the menu: focus comes back to ⋯ first, so the report dialog returns it there.
    buttonRef.current?.focus();
    action();
  };

  return (
    <div
      className={styles.menuWrap}
      ref={wrapRef}
      // Tabbing out of the open menu closes it, as a click elsewhere does.
      onBlur={(e) => open && !wrapRef.current?.contains(e.relatedTarget) && setOpen(false)}
    >
      <button
        ref={buttonRef}
        type="button"
        className={`${buttons.round} ${styles.iconButton}`}
        aria-label="More options"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((v) => !v)}
      >
        <MoreIcon size={20} />
      </button>
      {open && (
        <div id={menuId} className={styles.menu} role="group" aria-label="Post options">
          <button type="button" className={styles.menuItem} onClick={choose(onReport)} autoFocus>
            <FlagIcon size={18} />
            Report post
          </button>
          <button type="button" className={`${styles.menuItem} ${styles.menuDanger}`} onClick={choose(onBlock)}>
            <CloseIcon size={18} />
            {blockLabel}
          </button>
        </div>
      )}
    </div>
  );
}
