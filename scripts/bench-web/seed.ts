// The community `npm run bench:web` measures, made through the real HTTP API the way
// people make it: accounts through the embedded provider's sign-up form (GET the page
// for its CSRF cookie and field, POST the form, take the token from the 303's
// fragment), photos through presign → PUT → create-post, then follows, likes,
// comments and reports. Nothing is written to the database directly, so every
// counter, thumbnail and notification is the server's own.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { photoFile } from '../bench/images.js';
import { createRng } from '../bench/random.js';

export interface Account {
  username: string;
  email: string;
  password: string;
}

export interface SeededCommunity {
  viewer: Account;
  author: Account;
  friend: Account;
  operator: Account;
  /** Posts of each, as seeded (the author's all show on their profile). */
  posts: { viewer: number; author: number; friend: number };
  /** Photos the posts were made of: width × height and bytes. */
  photos: { width: number; height: number; bytes: number }[];
  seconds: number;
}

interface PublicConfig {
  auth: { provider: string; clientId: string; authorizeUrl: string; redirectUri: string; scope: string };
}

export async function publicConfig(baseUrl: string): Promise<PublicConfig> {
  const res = await fetch(`${baseUrl}/config.json`);
  if (!res.ok) throw new Error(`GET /config.json: ${res.status}`);
  return (await res.json()) as PublicConfig;
}

/** Signs a new account up on the embedded provider's form; returns the access token it hands back. */
async function signUp(baseUrl: string, config: PublicConfig, account: Account): Promise<string> {
  const state = randomBytes(16).toString('hex');
  const params = {
    response_type: 'token',
    client_id: config.auth.clientId,
    redirect_uri: config.auth.redirectUri,
    scope: config.auth.scope,
    state,
  };
  const form = await fetch(`${baseUrl}/oauth2/signup?${new URLSearchParams(params).toString()}`);
  if (!form.ok) throw new Error(`GET /oauth2/signup: ${form.status}`);
  const cookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!csrf || !cookie) throw new Error('the sign-up page carried no CSRF token');
  const res = await fetch(`${baseUrl}/oauth2/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ ...params, csrf_token: csrf, username: account.username, email: account.email, password: account.password }),
  });
  const location = res.headers.get('location') ?? '';
  const fragment = new URLSearchParams(location.split('#')[1] ?? '');
  const token = fragment.get('access_token');
  if (res.status !== 303 || !token || fragment.get('state') !== state) {
    throw new Error(`sign-up of ${account.username} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  }
  return token;
}

class Client {
  constructor(
    private readonly baseUrl: string,
    readonly token: string,
  ) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // create-post answers 503 with Retry-After while the image queue is full.
      if (res.status === 503 && attempt < 20) {
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
        continue;
      }
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
      return (await res.json()) as T;
    }
  }

  /** presign → PUT → create-post, as the create-post screen does. */
  async upload(file: Buffer, extra: Record<string, unknown>): Promise<{ postid?: number }> {
    const isProfilePicture = extra.isProfilePicture === true;
    const { uploadUrl, s3Key } = await this.call<{ uploadUrl: string; s3Key: string }>('POST', '/api/presign-upload', {
      fileName: 'IMG_0001.jpg',
      fileType: 'image/jpeg',
      ...(isProfilePicture ? { isProfilePicture } : {}),
    });
    const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: file });
    if (!put.ok) throw new Error(`PUT upload: ${put.status} ${await put.text()}`);
    return this.call('POST', '/api/create-post', { s3Key, ...extra });
  }
}

/**
 * Phone-camera photos (12 megapixels, 2.5–4 MB JPEGs) in the three shapes people post:
 * landscape, portrait and square. Each is a different synthetic picture (gradient,
 * foam, bubbles, grain: it compresses like a real one), cached under bench-data/.
 */
const PHOTOS: [number, number, number][] = [
  [4032, 3024, 3.5e6],
  [3024, 4032, 3.5e6],
  [3024, 3024, 3e6],
  [4032, 2268, 3e6],
  [3024, 4032, 3.2e6],
  [3024, 3024, 2.8e6],
  [4032, 3024, 3.2e6],
  [2268, 4032, 2.6e6],
];

const CAPTIONS = [
  'Cold one under the hot water',
  'Friday shower, Friday lager',
  'Steam and stout',
  'The foam held up the whole shower',
  'IPA o’clock',
  'Quick rinse, slow sip',
  'Pilsner in the rain shower',
  'Best seat in the house is the shower floor',
  'Morning after hike, evening shower beer',
  'New tiles, old favourite',
];

const ALT = [
  'A can of lager on the shower shelf, water drops running down it',
  'A pint glass with a thick foam head, steam in the background',
  'A bottle held up against white tiles',
  'Two cans on the edge of a bathtub',
];

export function accounts(prefix = 'bw'): { viewer: Account; author: Account; friend: Account; operator: Account } {
  const make = (name: string): Account => ({
    username: `${prefix}_${name}`,
    email: `${prefix}_${name}@example.test`,
    password: `Bench-${randomBytes(9).toString('base64url')}!`,
  });
  return { operator: make('operator'), viewer: make('viewer'), author: make('author'), friend: make('friend') };
}

/**
 * Seeds a fresh server: an operator (named in ADMIN_USERNAMES, and the first account),
 * a viewer who follows an author (30 posts) and a friend (6 posts, one anonymous),
 * the viewer's own 3 posts; likes and comments both ways so the feeds show counts and
 * first comments and the viewer's notifications have likes, comments and follows;
 * two reports so the operator's page has work in it.
 */
export async function seedCommunity(
  baseUrl: string,
  photoDir: string,
  who: { viewer: Account; author: Account; friend: Account; operator: Account },
  log: (line: string) => void,
): Promise<SeededCommunity> {
  const started = performance.now();
  const config = await publicConfig(baseUrl);
  if (config.auth.provider !== 'embedded') throw new Error('seeding needs the embedded identity provider');

  log('  photos (cached under bench-data/web-photos)…');
  const files: Buffer[] = [];
  const photos: SeededCommunity['photos'] = [];
  for (const [i, [width, height, bytes]] of PHOTOS.entries()) {
    const file = await photoFile(join(photoDir, `v${i}`), width, height, bytes, createRng(1000 + i));
    const data = readFileSync(file);
    files.push(data);
    photos.push({ width, height, bytes: data.length });
  }

  log('  accounts through the provider’s sign-up form…');
  // The operator first: the embedded provider makes its first account an operator anyway.
  const operator = new Client(baseUrl, await signUp(baseUrl, config, who.operator));
  const viewer = new Client(baseUrl, await signUp(baseUrl, config, who.viewer));
  const author = new Client(baseUrl, await signUp(baseUrl, config, who.author));
  const friend = new Client(baseUrl, await signUp(baseUrl, config, who.friend));
  for (const c of [operator, viewer, author, friend]) await c.call('POST', '/api/sync-users');

  log('  profile pictures…');
  for (const [i, c] of [viewer, author, friend].entries()) await c.upload(files[(i * 3 + 1) % files.length]!, { isProfilePicture: true });

  let n = 0;
  const post = async (c: Client, isAnonymous = false) => {
    const i = n++;
    const created = await c.upload(files[i % files.length]!, {
      caption: `${CAPTIONS[i % CAPTIONS.length]} #${i + 1}`,
      ...(i % 3 === 0 ? {} : { altText: ALT[i % ALT.length] }),
      isAnonymous,
    });
    if (typeof created.postid !== 'number') throw new Error('create-post returned no postid');
    return created.postid;
  };

  log('  posts (presign → PUT → create-post; the server makes display and thumbnail images)…');
  const viewerPosts: number[] = [];
  for (let i = 0; i < 3; i++) viewerPosts.push(await post(viewer));
  // Newest last: the feeds' first screens mix the author's and the friend's posts.
  const authorPosts: number[] = [];
  const friendPosts: number[] = [];
  for (let i = 0; i < 36; i++) {
    if (i % 6 === 2) friendPosts.push(await post(friend, friendPosts.length === 3));
    else authorPosts.push(await post(author));
    if ((i + 1) % 12 === 0) log(`    ${i + 1 + viewerPosts.length} of 39`);
  }

  log('  follows, likes, comments, reports…');
  for (const name of [who.author.username, who.friend.username]) await viewer.call('POST', `/api/account/${name}/follow`);
  for (const c of [author, friend, operator]) await c.call('POST', `/api/account/${who.viewer.username}/follow`);
  await friend.call('POST', `/api/account/${who.author.username}/follow`);

  const recent = [...authorPosts, ...friendPosts].sort((a, b) => b - a);
  for (const [i, id] of recent.entries()) {
    const byFriend = friendPosts.includes(id);
    if (i % 2 === 0) await (byFriend ? author : friend).call('POST', '/api/like', { postId: id });
    if (i % 3 === 0) await viewer.call('POST', '/api/like', { postId: id });
    if (i % 4 === 0) await operator.call('POST', '/api/like', { postId: id });
    if (i % 3 === 1) await (byFriend ? author : friend).call('POST', '/api/comment', { postId: id, comment: 'Cheers to that! 🍻' });
    if (i % 5 === 0) await viewer.call('POST', '/api/comment', { postId: id, comment: 'Now that is a proper shower beer.' });
  }
  let reportedComment: number | undefined;
  for (const [i, id] of viewerPosts.entries()) {
    await author.call('POST', '/api/like', { postId: id });
    if (i < 2) await friend.call('POST', '/api/like', { postId: id });
    if (i === 0) await operator.call('POST', '/api/like', { postId: id });
    await author.call('POST', '/api/comment', { postId: id, comment: 'Looks refreshing!' });
    if (i < 2) {
      const c = await friend.call<{ comment_id: number }>('POST', '/api/comment', { postId: id, comment: 'Save one for me next time' });
      reportedComment ??= c.comment_id;
    }
  }
  await viewer.call('POST', '/api/reports', { kind: 'post', id: friendPosts[0], reason: 'spam', note: 'Same photo every day' });
  await author.call('POST', '/api/reports', { kind: 'comment', id: reportedComment, reason: 'harassment' });

  return {
    viewer: who.viewer,
    author: who.author,
    friend: who.friend,
    operator: who.operator,
    posts: { viewer: viewerPosts.length, author: authorPosts.length, friend: friendPosts.length },
    photos,
    seconds: (performance.now() - started) / 1000,
  };
}
