import { useEffect, useId, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { BackIcon, ImageIcon } from '@/components/icons';
import page from '@/components/page.module.css';
import * as api from '@/lib/api';
import { getConfig } from '@/lib/config';
import styles from './create-post-page.module.css';

const CAPTION_WARN = 2000;

/** `/app/create-post`: pick a photo, write a caption, optionally post anonymously. */
export function CreatePostPage() {
  const navigate = useNavigate();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [caption, setCaption] = useState('');
  const [altText, setAltText] = useState('');
  const [anonymous, setAnonymous] = useState(false);
  const [sharing, setSharing] = useState(false);
  const [progress, setProgress] = useState(0);
  const [poster, setPoster] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const ids = { file: useId(), caption: useId(), counter: useId(), anon: useId(), hint: useId(), alt: useId(), altHint: useId() };

  // The spec: a user-info failure here sends the user back to the start.
  useEffect(() => {
    api
      .fetchUserInfo()
      .then((info) => setPoster(info.username ?? info.email))
      .catch((err: unknown) => {
        console.error('User info failed', err);
        navigate('/', { replace: true });
      });
  }, [navigate]);

  useEffect(() => {
    if (!file) return;
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => {
      URL.revokeObjectURL(url);
      setPreview(null);
    };
  }, [file]);

  const canShare = file !== null && caption.trim() !== '' && !sharing;

  function choose(chosen: File | undefined) {
    if (!chosen) return;
    if (chosen.size > getConfig().limits.maxUploadBytes) {
      window.alert('File is too large! Max 100MB.');
      return;
    }
    if (chosen.type && !chosen.type.startsWith('image/')) {
      window.alert('Please choose an image file.');
      return;
    }
    setFile(chosen);
  }

  async function share(e?: React.FormEvent) {
    e?.preventDefault();
    if (sharing) return;
    if (!file || !caption.trim()) {
      window.alert('Please select a file and enter a caption.');
      return;
    }
    if (file.size > getConfig().limits.maxUploadBytes) {
      window.alert('File is too large! Max 100MB.');
      return;
    }
    setSharing(true);
    setProgress(0);
    try {
      await api.createPost(file, caption.trim(), anonymous, setProgress, altText.trim());
      navigate('/app/account');
    } catch (err) {
      console.error(err);
      window.alert('Failed to create post. Please try again.');
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
              onClick={() => setFile(null)}
              disabled={sharing}
            >
              Remove Image
            </button>
          </div>
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
              choose(e.dataTransfer.files[0]);
            }}
          >
            <span className={styles.dropIcon}>
              <ImageIcon size={32} />
            </span>
            <span className={styles.dropTitle}>Choose a photo</span>
            <span className={styles.dropHint}>JPEG, PNG, WebP, HEIC… up to 100 MB</span>
          </label>
        )}
        {/* Named on its own too: with a photo chosen its label (the drop zone) is gone, and so is
            it from the tab order (Remove Image brings the drop zone back). */}
        <input
          id={ids.file}
          type="file"
          accept="image/*"
          className="visually-hidden"
          aria-label="Choose a photo"
          tabIndex={preview ? -1 : undefined}
          onChange={(e) => {
            choose(e.target.files?.[0]);
            e.target.value = '';
          }}
          disabled={sharing}
        />

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
            onChange={(e) => setAltText(e.target.value)}
            disabled={sharing}
          />
          <p id={ids.altHint} className={`${styles.hint} ${file && !altText.trim() ? styles.nudge : ''}`}>
            {file && !altText.trim()
              ? 'Adding a description helps people who use a screen reader enjoy your photo too.'
              : 'Read aloud to people who cannot see the photo.'}
          </p>
        </div>

        <div className={styles.toggleRow}>
          <div>
            <label htmlFor={ids.anon} className={styles.label}>
              Post Anonymously
            </label>
            <p id={ids.hint} className={styles.hint}>
              Hide your username from this post
            </p>
          </div>
          <input
            id={ids.anon}
            type="checkbox"
            role="switch"
            className={styles.switch}
            checked={anonymous}
            onChange={(e) => setAnonymous(e.target.checked)}
            aria-describedby={ids.hint}
            disabled={sharing}
          />
        </div>

        {poster && (
          <p className={styles.poster}>
            Posting as <strong>{anonymous ? 'Anonymous Beer Lover' : poster}</strong>
          </p>
        )}

        {sharing && (
          <div className={styles.progress}>
            <progress value={progress} max={1} aria-label="Upload progress" />
            <span>{Math.round(progress * 100)}%</span>
          </div>
        )}

        <button type="submit" className={`${buttons.primary} ${buttons.block} ${styles.submit}`} disabled={!canShare}>
          {shareLabel}
        </button>
      </form>
    </div>
  );
}
