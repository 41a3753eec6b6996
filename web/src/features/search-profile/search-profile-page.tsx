import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import buttons from '@/components/button.module.css';
import { SearchIcon } from '@/components/icons';
import page from '@/components/page.module.css';
import { EmptyState, Loading } from '@/components/status';
import { type ProfileResult, searchProfiles, searchTags, type TagResult } from '@/lib/api/people';
import { ApiError } from '@/lib/api/client';
import { useMe } from '@/lib/me-context';
import styles from './search-profile-page.module.css';

type SearchState =
  | { kind: 'welcome' }
  | { kind: 'loading' }
  | { kind: 'error' }
  | { kind: 'results'; results: ProfileResult[] }
  /** A term starting with `#` searches hashtags by prefix (issue 47). */
  | { kind: 'tags'; results: TagResult[] };

/** `/app/search-profile`: find people by username. */
export function SearchProfilePage() {
  const { me } = useMe();
  const [term, setTerm] = useState('');
  const [state, setState] = useState<SearchState>({ kind: 'welcome' });

  async function onSubmit(e: React.FormEvent) {
    e.preventDefault();
    const username = term.trim();
    if (!username) return;
    setState({ kind: 'loading' });
    try {
      if (username.startsWith('#') || username.startsWith('＃')) {
        const tag = username.slice(1).trim();
        // A lone `#` is no tag yet: nothing to find.
        setState({ kind: 'tags', results: tag ? await searchTags(tag) : [] });
      } else setState({ kind: 'results', results: await searchProfiles(username) });
    } catch (err) {
      // A term that cannot start a tag (`#a b`, `#<b>`): no tag has it.
      if (err instanceof ApiError && err.status === 400 && username.startsWith('#')) return setState({ kind: 'tags', results: [] });
      console.error(err);
      setState({ kind: 'error' });
    }
  }

  return (
    <div className={page.page}>
      <h1 className={page.title}>Search profiles</h1>
      <form className={styles.form} role="search" onSubmit={onSubmit}>
        <label htmlFor="search-username" className="visually-hidden">
          Username
        </label>
        <span className={styles.field}>
          <SearchIcon size={20} className={styles.fieldIcon} />
          <input
            id="search-username"
            type="search"
            placeholder="Search by username or #tag"
            value={term}
            maxLength={100}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            onChange={(e) => setTerm(e.target.value)}
          />
        </span>
        <button type="submit" className={buttons.primary}>
          Search
        </button>
      </form>

      <div aria-live="polite">
        {state.kind === 'welcome' && (
          <EmptyState
            icon={<SearchIcon size={28} />}
            title="Find your fellow beer lovers"
            text="Search for a username to see their shower beer moments and follow them."
          />
        )}
        {state.kind === 'loading' && <Loading text="Loading search... 🔍" />}
        {state.kind === 'error' && (
          <p className={styles.error} role="alert">
            Search failed, try again.
          </p>
        )}
        {state.kind === 'results' && state.results.length === 0 && (
          <EmptyState icon={<SearchIcon size={28} />} title="No profiles found" text="Try searching with a different username" />
        )}
        {state.kind === 'tags' && state.results.length === 0 && (
          <EmptyState icon={<SearchIcon size={28} />} title="No tags found" text="Try searching with a different tag" />
        )}
        {state.kind === 'tags' && state.results.length > 0 && (
          <>
            <p className={styles.count}>Found {state.results.length} tag(s)</p>
            <ul className={styles.results}>
              {state.results.map((r) => (
                <li key={r.tag}>
                  <Link className={styles.result} to={`/app/tag/${encodeURIComponent(r.tag)}`}>
                    <span className={styles.resultName}>
                      #{r.tag} <span className={styles.postCount}>{r.postCount === 1 ? '1 post' : `${r.postCount} posts`}</span>
                    </span>
                    <span className={styles.chevron} aria-hidden="true">
                      ›
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          </>
        )}
        {state.kind === 'results' && state.results.length > 0 && (
          <>
            <p className={styles.count}>Found {state.results.length} profile(s)</p>
            <ul className={styles.results}>
              {state.results.map((r) => (
                <li key={r.username}>
                  <Link
                    className={styles.result}
                    to={r.username === me?.username ? '/app/account' : `/app/profile/${encodeURIComponent(r.username)}`}
                  >
                    <Avatar name={r.username} pictureUrl={r.profilePictureUrl} size={48} />
                    <span className={styles.resultName}>{r.username}</span>
                    <span className={styles.chevron} aria-hidden="true">
                      ›
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </div>
  );
}
