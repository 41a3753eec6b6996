// What a first visitor does against a freshly started production server, over real HTTP:
// the health and config answers, the web app, then sign-up on the embedded provider's
// own pages, presign, upload, create-post, Discover, and the served thumbnail.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import sharp from 'sharp';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

export async function waitForOk(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function fail(msg: string): never {
  throw new Error(msg);
}

/** A tiny browser for the provider's form pages: keeps their cookie and never follows redirects. */
function formBrowser(base: string) {
  let cookie = '';
  return async (path: string, fields?: Record<string, string>) => {
    const res = await fetch(new URL(path, base), {
      method: fields ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: fields ? new URLSearchParams(fields).toString() : undefined,
    });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return res;
  };
}

/** Signs up a new person on the embedded provider's pages; returns their access token. */
export async function signUp(base: string, username: string): Promise<string> {
  const config = (await (await fetch(`${base}/config.json`)).json()) as { auth: { clientId: string; redirectUri: string } };
  const oauth = {
    response_type: 'token',
    client_id: config.auth.clientId,
    redirect_uri: config.auth.redirectUri,
    scope: 'email openid profile',
    state: randomBytes(8).toString('hex'),
  };
  const go = formBrowser(base);
  const page = await go(`/oauth2/signup?${new URLSearchParams(oauth)}`);
  if (page.status !== 200) fail(`the sign-up page answered ${page.status}`);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? fail('the sign-up page has no csrf_token field');
  const password = `Cold shower ${randomBytes(6).toString('hex')}`;
  const created = await go('/oauth2/signup', { ...oauth, csrf_token: csrf, username, email: `${username}@example.test`, password });
  const location = created.headers.get('location') ?? '';
  const fragment = new URLSearchParams(location.slice(location.indexOf('#') + 1));
  const token = fragment.get('access_token');
  if (created.status !== 303 || !token) fail(`sign-up answered ${created.status} without a token (${location.slice(0, 80)})`);
  if (fragment.get('state') !== oauth.state) fail('sign-up returned another state');
  return token;
}

async function json<T>(res: Response, what: string, status = 200): Promise<T> {
  if (res.status !== status) fail(`${what} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

export async function roundTrip(base: string, say: (msg: string) => void): Promise<void> {
  const ready = await fetch(`${base}/readyz`);
  if (ready.status !== 200) fail(`/readyz answered ${ready.status}: ${await ready.text()}`);
  const config = await json<{ appUrl: string; auth: { authorizeUrl: string } }>(await fetch(`${base}/config.json`), '/config.json');
  if (config.appUrl !== base || !config.auth.authorizeUrl.startsWith(base)) fail(`/config.json is wrong: ${JSON.stringify(config)}`);
  const page = await fetch(`${base}/`);
  const html = await page.text();
  if (page.status !== 200 || !/<div id="root"/.test(html)) fail(`/ did not serve the web app (${page.status})`);
  const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1] ?? fail('the web app names no script');
  const js = await fetch(new URL(script, base));
  if (js.status !== 200 || !/javascript/.test(js.headers.get('content-type') ?? '')) fail(`the app's script ${script} answered ${js.status}`);
  say('/readyz, /config.json, / and its script answer');

  const username = `prod${randomBytes(3).toString('hex')}`;
  const token = await signUp(base, username);
  const auth = { authorization: `Bearer ${token}` };
  say(`signed up ${username} on the provider's pages`);

  const presign = await json<{ uploadUrl: string; s3Key: string }>(
    await fetch(`${base}/api/presign-upload`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'beer.jpg', fileType: 'image/jpeg' }),
    }),
    'presign-upload',
  );
  const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#f5a524' } }).jpeg().toBuffer();
  const put = await fetch(presign.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: photo });
  if (!put.ok) fail(`the upload answered ${put.status}: ${(await put.text()).slice(0, 200)}`);
  const caption = `First cold one ${randomBytes(3).toString('hex')}`;
  await json(
    await fetch(`${base}/api/create-post`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ s3Key: presign.s3Key, caption, isAnonymous: false }),
    }),
    'create-post',
    201,
  );
  say('presigned, uploaded and posted a photo');

  const feed = await json<{ caption: string; username: string; s3Url: string }[]>(
    await fetch(`${base}/api/discover-posts`, { headers: auth }),
    'discover-posts',
  );
  const post = feed.find((p) => p.caption === caption) ?? fail(`Discover does not show the new post: ${JSON.stringify(feed).slice(0, 300)}`);
  if (post.username !== username) fail(`the post shows ${post.username}, not ${username}`);
  const image = await fetch(new URL(post.s3Url, base));
  if (image.status !== 200 || !/^image\//.test(image.headers.get('content-type') ?? '')) fail(`the post's image ${post.s3Url} answered ${image.status}`);
  say('Discover shows the post and its image is served');
}
