import { useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { BackIcon, ImageIcon, PlusIcon, TrashIcon } from '@/components/icons';
import page from '@/components/page.module.css';
import { SensitiveFields } from '@/components/sensitive-fields';
import { SwitchRow } from '@/components/switch-row';
import { ApiError } from '@/lib/api/client';
import { fetchUserInfo } from '@/lib/api/people';
import { createAlbum, createPost } from '@/lib/api/posts';
import { getConfig } from '@/lib/config';
import styles from './create-post-page.module.css';

const CAPTION_WARN = 2000;

/** A photo chosen for the post, with its preview and description. */
interface Chosen {
  id: number;
  file: File;
  /** Object URL of the preview, revoked when the photo is removed or the page goes. */
  url: string;
  altText: string;
}

/**
 * `/app/create-post`: pick a photo (or up to 10 for an album: reorder, remove and describe each),
 * write a caption, optionally post anonymously. One photo looks and works as the spec's screen.
 */
export function CreatePostPage() {
  const navigate = useNavigate();
  // The photos in the order they will be shown: one is the spec's post, 2 to 10 an album.
  const [photos, setPhotos] = useState<Chosen[]>([]);
  const [caption, setCaption] = useState('');
  const [anonymous, setAnonymous] = useState(false);
  const [sensitivity, setSensitivity] = useState({ sensitive: false, warning: '' });
  const [sharing, setSharing] = useState(false);
  const [progress, setProgress] = useState(0);
  const [uploaded, setUploaded] = useState(0);
  /** What the last reorder or removal did, read out by screen readers. */
  const [announcement, setAnnouncement] = useState('');
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  const [dragOver, setDragOver] = useState<number | null>(null);
  const addInput = useRef<HTMLInputElement>(null);
  const albumList = useRef<HTMLOListElement>(null);
  const nextId = useRef(1);
  const urls = useRef(new Set<string>());
  const max = getConfig().limits.albumMaxPhotos;
  const [poster, setPoster] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const ids = {
    file: useId(),
    add: useId(),
    caption: useId(),
    counter: useId(),
    alt: useId(),
    altHint: useId(),
    album: useId(),
    albumHint: useId(),
    photo: useId(),
  };

  // The spec: a user-info failure here sends the user back to the start.
  useEffect(() => {
    fetchUserInfo()
      .then((info) => setPoster(info.username ?? info.email))
      .catch((err: unknown) => {
        console.error('User info failed', err);
        navigate('/', { replace: true });
      });
  }, [navigate]);

  // Each preview's object URL lives as long as its photo is chosen, and no longer than the page.
  useEffect(() => {
    const live = urls.current;
    return () => {
      for (const url of live) URL.revokeObjectURL(url);
      live.clear();
    };
  }, []);

  const file = photos[0]?.file ?? null;
  const preview = photos.length === 1 ? photos[0]!.url : null;
  const album = photos.length > 1;
  const altText = photos[0]?.altText ?? '';
  const canShare = file !== null && caption.trim() !== '' && !sharing;

  /** Adds photos after those chosen, as many as fit (the spec's alerts for a file too large or not an image). */
  function choose(chosen: File[]) {
    const accepted: File[] = [];
    for (const f of chosen) {
      if (f.size > getConfig().limits.maxUploadBytes) {
        window.alert('File is too large! Max 100MB.');
        continue;
      }
      if (f.type && !f.type.startsWith('image/')) {
        window.alert('Please choose an image file.');
        continue;
      }
      accepted.push(f);
    }
    if (accepted.length === 0) return;
    const room = max - photos.length;
    if (accepted.length > room) {
      window.alert(`A post holds up to ${max} photos: ${room > 0 ? `only the first ${room} of these were added` : 'none of these were added'}.`);
    }
    const added = accepted.slice(0, Math.max(0, room)).map((f) => {
      const url = URL.createObjectURL(f);
      urls.current.add(url);
      return { id: nextId.current++, file: f, url, altText: '' };
    });
    if (added.length === 0) return;
    setPhotos((list) => [...list, ...added]);
    if (photos.length + added.length > 1) {
      setAnnouncement(`${added.length === 1 ? 'Photo' : `${added.length} photos`} added: ${photos.length + added.length} of ${max}.`);
    }
  }

  function remove(index: number) {
    const gone = photos[index];
    if (!gone) return;
    URL.revokeObjectURL(gone.url);
    urls.current.delete(gone.url);
    const left = photos.filter((_, i) => i !== index);
    setPhotos(left);
    if (photos.length > 1) {
      setAnnouncement(`Photo ${index + 1} removed. ${left.length} ${left.length === 1 ? 'photo' : 'photos'} left.`);
      // Focus stays in the list: on the photo that took its place, or the one before.
      const next = left[Math.min(index, left.length - 1)];
      if (left.length > 1 && next) focusLater(`remove-${next.id}`);
    }
  }

  function move(from: number, to: number, focus?: 'earlier' | 'later') {
    if (from === to || to < 0 || to >= photos.length) return;
    const list = [...photos];
    const [moved] = list.splice(from, 1);
    list.splice(to, 0, moved!);
    setPhotos(list);
    setAnnouncement(`Photo moved to position ${to + 1} of ${list.length}.`);
    if (focus) {
      // At an end its button is disabled: the other direction's takes the focus.
      const atEnd = focus === 'earlier' ? to === 0 : to === list.length - 1;
      focusLater(`${atEnd ? (focus === 'earlier' ? 'later' : 'earlier') : focus}-${moved!.id}`);
    }
  }

  function focusLater(target: string) {
    requestAnimationFrame(() => albumList.current?.querySelector<HTMLElement>(`[data-focus="${target}"]`)?.focus());
  }

  const setAltText = (index: number, value: string) =>
    setPhotos((list) => list.map((p, i) => (i === index ? { ...p, altText: value } : p)));

  async function share(e?: React.FormEvent) {
    e?.preventDefault();
    if (sharing) return;
    if (!file || !caption.trim()) {
      window.alert('Please select a file and enter a caption.');
      return;
    }
    if (photos.some((p) => p.file.size > getConfig().limits.maxUploadBytes)) {
      window.alert('File is too large! Max 100MB.');
      return;
    }
    setSharing(true);
    setProgress(0);
    setUploaded(0);
    const marked = sensitivity.sensitive ? { sensitive: true, contentWarning: sensitivity.warning.trim() } : {};
    try {
      if (album) {
        await createAlbum(
          photos.map((p) => ({ file: p.file, altText: p.altText.trim() })),
          caption.trim(),
          anonymous,
          (fraction, done) => {
            setProgress(fraction);
            setUploaded(done);
          },
          marked,
        );
      } else {
        await createPost(file, caption.trim(), anonymous, setProgress, altText.trim(), marked);
      }
      navigate('/app/account');
    } catch (err) {
      console.error(err);
      // An album's refusal says which photo and why ("Photo 3 of 5: …", docs/api.md "Albums").
      const why = album && err instanceof ApiError && err.status >= 400 && err.status < 500 ? `\n\n${err.message}` : '';
      window.alert(`Failed to create post. Please try again.${why}`);
      setSharing(false);
    }
  }

  const shareLabel = sharing ? 'Sharing Your Moment...' : 'Share Shower Beer';

  return (
    <div className={page.page}>
      <header className={styles.header}>
        <button
          type="button"
          className={styles.back}
          onClick={() => (window.history.length > 1 ? navigate(-1) : navigate('/app/discover'))}
          aria-label="Back"
        >
          <BackIcon />
        </button>
        <h1 className={styles.title}>New post</h1>
        <button
          type="button"
          className={`${buttons.primary} ${buttons.small}`}
          onClick={() => share()}
          disabled={!canShare}
        >
          Share
        </button>
      </header>

      <form className={styles.form} onSubmit={share} aria-busy={sharing}>
        {preview ? (
          <div className={styles.preview}>
            <img src={preview} alt="Preview of the selected photo" />
            <button
              type="button"
              className={`${buttons.secondary} ${buttons.small} ${styles.remove}`}
              onClick={() => remove(0)}
              disabled={sharing}
            >
              Remove Image
            </button>
          </div>
        ) : album ? (
          <section className={styles.albumSection} aria-labelledby={ids.album} aria-describedby={ids.albumHint}>
            <div className={styles.labelRow}>
              <h2 id={ids.album} className={styles.label}>
                Photos
              </h2>
              <span className={styles.counter}>
                {photos.length}/{max}
              </span>
            </div>
            <p id={ids.albumHint} className={styles.hint}>
              Shown in this order, the first one on the profile grid. Drag a photo, or use its arrows, to move it.
            </p>
            <ol className={styles.album} ref={albumList}>
              {photos.map((photo, i) => (
                <li
                  key={photo.id}
                  className={`${styles.albumItem} ${dragOver === i && dragFrom !== i ? styles.dropTarget : ''} ${dragFrom === i ? styles.lifted : ''}`}
                  draggable={!sharing}
                  onDragStart={(e) => {
                    setDragFrom(i);
                    e.dataTransfer.effectAllowed = 'move';
                    e.dataTransfer.setData('text/plain', String(i));
                  }}
                  onDragOver={(e) => {
                    e.preventDefault();
                    setDragOver(i);
                  }}
                  onDragLeave={() => setDragOver((over) => (over === i ? null : over))}
                  onDrop={(e) => {
                    e.preventDefault();
                    setDragOver(null);
                    if (dragFrom !== null) move(dragFrom, i);
                    else choose(Array.from(e.dataTransfer.files));
                    setDragFrom(null);
                  }}
                  onDragEnd={() => {
                    setDragFrom(null);
                    setDragOver(null);
                  }}
                >
                  <span className={styles.position} aria-hidden="true">
                    {i + 1}
                  </span>
                  <img className={styles.thumb} src={photo.url} alt={`Preview of photo ${i + 1}`} draggable={false} />
                  <div className={styles.albumFields}>
                    <label htmlFor={`${ids.photo}-${photo.id}`} className={styles.smallLabel}>
                      Describe photo {i + 1}
                    </label>
                    <textarea
                      id={`${ids.photo}-${photo.id}`}
                      className={`${styles.textarea} ${styles.altArea}`}
                      value={photo.altText}
                      maxLength={getConfig().limits.altTextMaxLength}
                      rows={2}
                      placeholder="What is in this photo?"
                      onChange={(e) => setAltText(i, e.target.value)}
                      disabled={sharing}
                    />
                    <span className={`${styles.counter} ${styles.altCounter}`}>
                      {photo.altText.length}/{getConfig().limits.altTextMaxLength}
                    </span>
                  </div>
                  <div className={styles.albumActions}>
                    <button
                      type="button"
                      className={styles.iconButton}
                      data-focus={`earlier-${photo.id}`}
                      aria-label={`Move photo ${i + 1} earlier`}
                      title="Move earlier"
                      onClick={() => move(i, i - 1, 'earlier')}
                      disabled={sharing || i === 0}
                    >
                      <BackIcon size={18} className={styles.up} />
                    </button>
                    <button
                      type="button"
                      className={styles.iconButton}
                      data-focus={`later-${photo.id}`}
                      aria-label={`Move photo ${i + 1} later`}
                      title="Move later"
                      onClick={() => move(i, i + 1, 'later')}
                      disabled={sharing || i === photos.length - 1}
                    >
                      <BackIcon size={18} className={styles.down} />
                    </button>
                    <button
                      type="button"
                      className={styles.iconButton}
                      data-focus={`remove-${photo.id}`}
                      aria-label={`Remove photo ${i + 1}`}
                      title="Remove"
                      onClick={() => remove(i)}
                      disabled={sharing}
                    >
                      <TrashIcon size={18} />
                    </button>
                  </div>
                </li>
              ))}
            </ol>
          </section>
        ) : (
          <label
            htmlFor={ids.file}
            className={`${styles.drop} ${dragging ? styles.dragging : ''}`}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={(e) => {
              e.preventDefault();
              setDragging(false);
              choose(Array.from(e.dataTransfer.files));
            }}
          >
            <span className={styles.dropIcon}>
              <ImageIcon size={32} />
            </span>
            <span className={styles.dropTitle}>Choose a photo</span>
            <span className={styles.dropHint}>JPEG, PNG, WebP, HEIC… up to 100 MB, or up to {max} photos for an album</span>
          </label>
        )}
        {/* Named on its own too: with a photo chosen its label (the drop zone) is gone, and so is
            it from the tab order (Remove Image brings the drop zone back). */}
        <input
          id={ids.file}
          type="file"
          accept="image/*"
          multiple
          className="visually-hidden"
          aria-label="Choose a photo"
          tabIndex={photos.length > 0 ? -1 : undefined}
          onChange={(e) => {
            choose(Array.from(e.target.files ?? []));
            e.target.value = '';
          }}
          disabled={sharing}
        />
        {photos.length > 0 && photos.length < max && (
          <>
            <button
              type="button"
              className={`${buttons.secondary} ${buttons.small} ${styles.addPhotos}`}
              onClick={() => addInput.current?.click()}
              disabled={sharing}
            >
              <PlusIcon size={18} />
              {album ? 'Add more photos' : 'Add photos for an album'}
            </button>
            <input
              ref={addInput}
              type="file"
              accept="image/*"
              multiple
              className="visually-hidden"
              aria-label="Add photos"
              tabIndex={-1}
              onChange={(e) => {
                choose(Array.from(e.target.files ?? []));
                e.target.value = '';
              }}
              disabled={sharing}
            />
          </>
        )}
        <p className="visually-hidden" aria-live="polite">
          {announcement}
        </p>

        <div className={styles.field}>
          <div className={styles.labelRow}>
            <label htmlFor={ids.caption} className={styles.label}>
              Caption
            </label>
            <span
              id={ids.counter}
              className={`${styles.counter} ${caption.length > CAPTION_WARN ? styles.warn : ''}`}
              aria-live={caption.length > CAPTION_WARN ? 'polite' : 'off'}
            >
              {caption.length}/{getConfig().limits.captionMaxLength}
            </span>
          </div>
          <textarea
            id={ids.caption}
            className={styles.textarea}
            value={caption}
            maxLength={getConfig().limits.captionMaxLength}
            rows={4}
            placeholder="The beer, the water temperature, the vibe…"
            aria-describedby={ids.counter}
            onChange={(e) => setCaption(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                share();
              }
            }}
            disabled={sharing}
          />
        </div>

        {!album && (
          <div className={styles.field}>
            <div className={styles.labelRow}>
              <label htmlFor={ids.alt} className={styles.label}>
                Describe the photo <span className={styles.optional}>(alt text, optional)</span>
              </label>
              <span className={styles.counter}>
                {altText.length}/{getConfig().limits.altTextMaxLength}
              </span>
            </div>
            <textarea
              id={ids.alt}
              className={styles.textarea}
              value={altText}
              maxLength={getConfig().limits.altTextMaxLength}
              rows={2}
              placeholder="A frosty lager on the shower shelf, steam all around…"
              aria-describedby={ids.altHint}
              onChange={(e) => setAltText(0, e.target.value)}
              disabled={sharing}
            />
            <p id={ids.altHint} className={`${styles.hint} ${file && !altText.trim() ? styles.nudge : ''}`}>
              {file && !altText.trim()
                ? 'Adding a description helps people who use a screen reader enjoy your photo too.'
                : 'Read aloud to people who cannot see the photo.'}
            </p>
          </div>
        )}

        <SwitchRow
          label="Post Anonymously"
          hint="Hide your username from this post"
          checked={anonymous}
          onChange={setAnonymous}
          disabled={sharing}
          labelClassName={styles.label}
          hintClassName={styles.hint}
        />

        <SensitiveFields
          sensitive={sensitivity.sensitive}
          warning={sensitivity.warning}
          onChange={(sensitive, warning) => setSensitivity({ sensitive, warning })}
          disabled={sharing}
        />

        {poster && (
          <p className={styles.poster}>
            Posting as <strong>{anonymous ? 'Anonymous Beer Lover' : poster}</strong>
          </p>
        )}

        {sharing && (
          <div className={styles.progress}>
            <progress value={progress} max={1} aria-label="Upload progress" />
            <span>{album ? `${uploaded} of ${photos.length} photos uploaded` : `${Math.round(progress * 100)}%`}</span>
          </div>
        )}

        <button type="submit" className={`${buttons.primary} ${buttons.block} ${styles.submit}`} disabled={!canShare}>
          {shareLabel}
        </button>
      </form>
    </div>
  );
}
