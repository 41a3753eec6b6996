import { useEffect, useId, useState } from 'react';
import { Modal, ModalFormFooter } from '@/components/modal';
import modal from '@/components/modal.module.css';
import { SensitiveFields } from '@/components/sensitive-fields';
import { editPost, getPostVersions, type PostEdit, type PostVersion } from '@/lib/api/posts';
import { getConfig } from '@/lib/config';
import { formatDate, formatTime, postTime } from '@/lib/format';
import { errorText, useSubmit } from '@/lib/use-submit';
import styles from './post-edit.module.css';

/** "Nov 27, 2026, 5:20 PM" in the browser's language. */
const dateAndTime = (iso: string) => `${formatDate(iso)}, ${formatTime(new Date(iso))}`;

/** What a card shows after its date: "Edited", as long ago as the post's own time says it ("Edited 5 min"). */
export const editedLabel = (iso: string): string => `Edited ${postTime(iso).text}`;

interface EditPostProps {
  post: {
    postid: number;
    caption: string;
    altText: string;
    photos?: Array<{ thumbnailUrl: string; altText: string }>;
    sensitive?: { warning: string };
  };
  onSaved: (edit: PostEdit) => void;
  onClose: () => void;
}

/**
 * The author changes the caption and each photo's description (docs/api.md, "Editing a post"):
 * the same limits as when posting; the photos, and whether the post is anonymous, stay. An
 * album gets one field per photo, each beside its thumbnail so the author knows which it is.
 */
export function EditPostDialog({ post, onSaved, onClose }: EditPostProps) {
  const album = post.photos && post.photos.length > 1 ? post.photos : null;
  const [caption, setCaption] = useState(post.caption);
  const [altTexts, setAltTexts] = useState(() => (album ? album.map((p) => p.altText) : [post.altText]));
  const submit = useSubmit('The post could not be saved. Please try again.');
  const ids = { caption: useId(), counter: useId(), alt: useId(), hint: useId() };
  const { captionMaxLength, altTextMaxLength } = getConfig().limits;
  const setAlt = (index: number, text: string) => setAltTexts((list) => list.map((a, i) => (i === index ? text : a)));
  const [sensitivity, setSensitivity] = useState({ sensitive: post.sensitive !== undefined, warning: post.sensitive?.warning ?? '' });
  return (
    <Modal title="Edit post" onClose={onClose}>
      {(close) => (
        <form
          className={modal.form}
          onSubmit={async (e) => {
            e.preventDefault();
            if (submit.busy) return;
            if (!caption.trim()) {
              submit.setError('The caption cannot be blank.');
              return;
            }
            await submit.run(async () => {
              onSaved(
                await editPost(post.postid, {
                  ...(album ? { caption, photos: altTexts.map((altText, index) => ({ index, altText })) } : { caption, altText: altTexts[0] ?? '' }),
                  // docs/api.md, "Content warnings": the flag and the text change in the same edit.
                  ...(sensitivity.sensitive ? { sensitive: true, contentWarning: sensitivity.warning.trim() } : { sensitive: false }),
                }),
              );
              close();
            });
          }}
        >
          <label htmlFor={ids.caption} className={modal.label}>
            Caption
            <span id={ids.counter} className={styles.counter}>
              {caption.length}/{captionMaxLength}
            </span>
          </label>
          <textarea
            id={ids.caption}
            className={modal.textarea}
            value={caption}
            maxLength={captionMaxLength}
            onChange={(e) => setCaption(e.target.value)}
            aria-describedby={ids.counter}
            data-autofocus
          />
          {album ? (
            <fieldset className={styles.photos} aria-describedby={ids.hint}>
              <legend className={modal.label}>Photo descriptions</legend>
              <ol className={styles.photoList}>
                {album.map((photo, i) => (
                  <li key={i} className={styles.photoRow}>
                    {/* Decorative: the field's label says which photo it is; the thumbnail shows it. */}
                    <img className={styles.thumb} src={photo.thumbnailUrl} alt="" width={56} height={56} loading="lazy" />
                    <span className={styles.photoField}>
                      <label htmlFor={`${ids.alt}-${i}`} className={styles.photoLabel}>
                        Photo {i + 1} of {album.length}
                      </label>
                      <textarea
                        id={`${ids.alt}-${i}`}
                        className={`${modal.textarea} ${styles.photoText}`}
                        value={altTexts[i] ?? ''}
                        maxLength={altTextMaxLength}
                        onChange={(e) => setAlt(i, e.target.value)}
                      />
                    </span>
                  </li>
                ))}
              </ol>
            </fieldset>
          ) : (
            <>
              <label htmlFor={ids.alt} className={modal.label}>
                Photo description
              </label>
              <textarea
                id={ids.alt}
                className={modal.textarea}
                value={altTexts[0] ?? ''}
                maxLength={altTextMaxLength}
                onChange={(e) => setAlt(0, e.target.value)}
                aria-describedby={ids.hint}
              />
            </>
          )}
          <p id={ids.hint} className={modal.hint}>
            Read aloud to people who cannot see the {album ? 'photos' : 'photo'}. The {album ? 'photos themselves stay' : 'photo itself stays'} as
            {album ? ' they are' : ' it is'}, and everyone who can see the post can see its earlier versions.
          </p>
          <SensitiveFields
            sensitive={sensitivity.sensitive}
            warning={sensitivity.warning}
            onChange={(sensitive, warning) => setSensitivity({ sensitive, warning })}
          />
          <ModalFormFooter error={submit.error} busy={submit.busy} onCancel={close} submitLabel="Save" busyLabel="Saving..." />
        </form>
      )}
    </Modal>
  );
}

/** Every version of a post's text, newest first (GET /api/post-versions). Names nobody: the post's header does. */
export function PostHistoryDialog({ postId, onClose }: { postId: number; onClose: () => void }) {
  const [versions, setVersions] = useState<PostVersion[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    getPostVersions(postId).then(
      (v) => live && setVersions(v),
      (err: unknown) => live && setError(errorText(err, 'The earlier versions could not be loaded.')),
    );
    return () => {
      live = false;
    };
  }, [postId]);
  return (
    <Modal title="Edit history" onClose={onClose}>
      {error && (
        <p className={modal.error} role="alert">
          {error}
        </p>
      )}
      {!versions && !error && <p className={modal.hint} role="status">Loading...</p>}
      {versions && (
        <ol className={styles.versions} aria-label="Versions, newest first">
          {versions.map((v, i) => {
            // Newest first: the version before this one is the next in the list; the first post has none.
            const before = versions[i + 1];
            return (
              <li key={v.created_at + i} className={`${styles.version} ${v.current ? styles.current : ''}`}>
                <p className={styles.meta}>
                  <strong>{before ? 'Edited' : 'Posted'}</strong> <time dateTime={v.created_at}>{dateAndTime(v.created_at)}</time>
                  {v.current && ' · Current version'}
                </p>
                {before ? <VersionChanges version={v} before={before} /> : <VersionText version={v} />}
              </li>
            );
          })}
        </ol>
      )}
    </Modal>
  );
}

/** The first version: everything it said. */
function VersionText({ version: v }: { version: PostVersion }) {
  return (
    <>
      <p className={styles.caption}>{v.caption}</p>
      {v.photos ? (
        <VersionPhotos photos={v.photos} />
      ) : (
        v.altText && (
          <p className={styles.alt}>
            <strong>Photo description:</strong> {v.altText}
          </p>
        )
      )}
    </>
  );
}

/**
 * An edit: only what it changed from the version before (issue 48), each marked "Changed", so a
 * reader need not compare every description of every version; an unchanged caption says so.
 */
function VersionChanges({ version: v, before }: { version: PostVersion; before: PostVersion }) {
  const changed = <span className={styles.changed}>Changed</span>;
  const photos = v.photos ?? [{ altText: v.altText }];
  const earlier = before.photos ?? [{ altText: before.altText }];
  const album = photos.length > 1;
  const altChanges = photos.map((p, index) => ({ index, altText: p.altText })).filter((p) => p.altText !== (earlier[p.index]?.altText ?? ''));
  return (
    <>
      {v.caption === before.caption ? (
        <p className={styles.unchanged}>Caption unchanged</p>
      ) : (
        <p className={styles.caption}>
          {changed} {v.caption}
        </p>
      )}
      {altChanges.length > 0 && (
        <ul className={styles.altList} aria-label={album ? 'Photo descriptions changed' : 'Photo description changed'}>
          {altChanges.map((p) => (
            <li key={p.index} className={styles.alt}>
              {changed}{' '}
              <strong>{album ? `Photo ${p.index + 1} of ${photos.length}:` : 'Photo description:'}</strong>{' '}
              {p.altText || <em>Description removed</em>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** An album's descriptions in one version, by photo; a photo without one says so, so a removal shows. */
function VersionPhotos({ photos }: { photos: Array<{ altText: string }> }) {
  return (
    <ul className={styles.altList} aria-label="Photo descriptions">
      {photos.map((p, i) => (
        <li key={i} className={styles.alt}>
          <strong>
            Photo {i + 1} of {photos.length}:
          </strong>{' '}
          {p.altText || <em>No description</em>}
        </li>
      ))}
    </ul>
  );
}
