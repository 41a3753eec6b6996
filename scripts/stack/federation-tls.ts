// Federation over https between two Shower Beer servers, run for real (issue 49): each server
// behind Caddy (Debian's `caddy`) with a certificate from Caddy's own local authority, at
// https://a.test:PORT and https://b.test:PORT, FEDERATION=on, each trusting that authority
// (NODE_EXTRA_CA_CERTS) and allowed to reach exactly the other's host:port on loopback
// (FEDERATION_ALLOWED_PRIVATE_HOSTS). WebFinger lookups of `acct:` handles always go over https,
// so this is where search's `@name@host` path runs (server/test/federation/ looks people up by
// actor URL over plain http). Through the HTTP API, as the web app calls it:
//
//   WebFinger of acct:bob@b.test:PORT over https; Alice on A searches `@bob@b.test:PORT` and
//   `bob@b.test:PORT`, finds him, follows him ("Requested", then Bob's server accepts); Bob posts
//   a photo, which reaches Alice's Following feed with its photo; Alice likes it, and Bob's
//   server counts the like. A handle on a third host that resolves to loopback but is not in
//   the allow list (c.test, behind the same Caddy, logging every request) is refused with no
//   request made to it.
//
// The names: *.test does not resolve on its own, and both servers (separate processes, Node's
// fetch) must resolve them, so they go in /etc/hosts (one line, added only when missing, only
// as root; CI runs as root). A custom lookup would have had to be put into the servers' code.
//
//   npx tsx scripts/stack/federation-tls.ts               # the servers from this checkout (tsx)
//   npx tsx scripts/stack/federation-tls.ts --tree DIR    # a tree built by `npm run test:prod -- --keep DIR`
//   npm run test:stack -- --only federation-tls --tree DIR
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { appendFileSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import tls from 'node:tls';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { freePort, signUp } from '../prod/round-trip.js';

export const HOSTS = ['a.test', 'b.test', 'c.test'] as const;

export interface FederationTlsOptions {
  /** Where the app's command runs (a built tree, or the checkout). */
  appCwd: string;
  /** Starts one server (e.g. `node server/dist/server.js`). */
  appCommand: string;
  say: (msg: string) => void;
}

/** Caddyfile lines answering WebFinger for acct:mallory@host with an actor elsewhere. */
function mallory(host: string, actor: string): string {
  const jrd = JSON.stringify({ subject: `acct:mallory@${host}`, links: [{ rel: 'self', type: 'application/activity+json', href: actor }] });
  return `\t@mallory query resource=acct:mallory@${host}\n\theader @mallory Content-Type application/jrd+json\n\trespond @mallory \`${jrd}\` 200\n`;
}

function fail(msg: string): never {
  throw new Error(msg);
}

/** The names resolve to 127.0.0.1: added to /etc/hosts when missing (root only), never changed when present. */
export async function ensureNames(names: readonly string[], say: (msg: string) => void): Promise<void> {
  const resolved = await Promise.all(names.map((n) => lookup(n, { family: 4 }).then((a) => a.address, () => null)));
  const wrong = names.filter((n, i) => resolved[i] !== null && resolved[i] !== '127.0.0.1');
  if (wrong.length) fail(`${wrong.join(', ')} resolve elsewhere than 127.0.0.1 here: remove them from /etc/hosts or resolve them to 127.0.0.1`);
  const missing = names.filter((_n, i) => resolved[i] === null);
  if (!missing.length) return;
  if (process.getuid?.() !== 0) fail(`${missing.join(', ')} do not resolve: add "127.0.0.1 ${missing.join(' ')}" to /etc/hosts (this script does it only as root)`);
  const text = readFileSync('/etc/hosts', 'utf8');
  appendFileSync('/etc/hosts', `${text.endsWith('\n') || text === '' ? '' : '\n'}127.0.0.1 ${missing.join(' ')} # shower-beer scripts/stack/federation-tls.ts\n`);
  say(`added ${missing.join(', ')} to /etc/hosts`);
}

function stopGroup(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null || !child.pid) return Promise.resolve();
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* gone */
    }
  };
  kill('SIGTERM');
  const timer = setTimeout(() => kill('SIGKILL'), 5_000);
  return exited.finally(() => clearTimeout(timer));
}

function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  // Its own process group, so everything it starts (npx, tsx) stops with it.
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  return child;
}

const tail = (file: string, lines = 25) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)');

/** The socialweb.coop checker of an actor, fetched from the npm registry when the lane runs (272 packages: not a dependency of the project). */
const ACTOR_CHECKER_VERSION = '0.16.1';

/** Runs `activitypub-testing test actor` and counts its outcomes (one JSON assertion a line). */
async function actorChecker(actor: string, caRoot: string, work: string): Promise<{ passed: number; failed: string[]; other: number }> {
  const out = join(work, 'activitypub-testing.out');
  const fd = openSync(out, 'w');
  // Caddy's root added to the authorities the machine already gives Node, not put in their place:
  // a runner whose way to the npm registry is a proxy with its own authority (NODE_EXTRA_CA_CERTS)
  // could otherwise not fetch the checker (SELF_SIGNED_CERT_IN_CHAIN).
  const given = process.env.NODE_EXTRA_CA_CERTS;
  const authorities = join(work, 'extra-ca-certs.pem');
  writeFileSync(authorities, [given && existsSync(given) ? readFileSync(given, 'utf8') : '', readFileSync(caRoot, 'utf8')].join('\n'));
  const child = spawn('npx', ['--yes', `activitypub-testing@${ACTOR_CHECKER_VERSION}`, 'test', 'actor', actor], {
    cwd: work,
    // The checker's package.json asks for Node ^20; it runs on the 22 every lane runs on (6 passed in
    // CI). The project's engine-strict (.npmrc, handed to child processes as npm_config_engine_strict
    // by `npm run`) is for the app's own install, not for this tool's.
    env: { ...process.env, NODE_EXTRA_CA_CERTS: authorities, npm_config_engine_strict: 'false' },
    stdio: ['ignore', fd, 'inherit'],
  });
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  closeSync(fd);
  const results = { passed: 0, failed: [] as string[], other: 0 };
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    // One JSON a line; json-seq's record separator (U+001E) first, if any.
    const text = (line.startsWith(String.fromCharCode(30)) ? line.slice(1) : line).trim();
    if (!text.startsWith('{')) continue;
    const a = JSON.parse(text) as { outcome?: string; result?: { outcome?: string }; test?: { name?: string; slug?: string } };
    const outcome = a.result?.outcome ?? a.outcome;
    if (outcome === 'passed') results.passed++;
    else if (outcome === 'failed') results.failed.push(a.test?.slug ?? a.test?.name ?? 'a test');
    else results.other++;
  }
  expect(code === 0 || results.failed.length > 0, `activitypub-testing exited ${code}`, readFileSync(out, 'utf8').slice(0, 400));
  return results;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) fail(`timed out (${ms / 1000} s) waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A signed-in person's calls to one server's API; `json` is the parsed answer (its text when not JSON). */
function api(base: string, token: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several routes' shapes, read field by field
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(new URL(path, base), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    try {
      return { status: res.status, json: JSON.parse(text) as unknown };
    } catch {
      return { status: res.status, json: text };
    }
  };
}

function expect(ok: unknown, what: string, got?: unknown): void {
  if (!ok) fail(`${what}${got === undefined ? '' : `: got ${JSON.stringify(got).slice(0, 400)}`}`);
}

export async function checkFederationOverTls(opts: FederationTlsOptions): Promise<{ ms: number }> {
  const { say } = opts;
  const started = Date.now();
  await ensureNames(HOSTS, say);
  const work = mkdtempSync(join(tmpdir(), 'shower-beer-federation-tls-'));
  const [appA, appB, tlsA, tlsB, tlsC, plain] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  const a = { host: `a.test:${tlsA}`, origin: `https://a.test:${tlsA}` };
  const b = { host: `b.test:${tlsB}`, origin: `https://b.test:${tlsB}` };
  const c = { host: `c.test:${tlsC}`, origin: `https://c.test:${tlsC}` };
  const cLog = join(work, 'c-access.log');
  const children: ChildProcess[] = [];
  const logs: string[] = [];
  try {
    // Caddy: `tls internal` issues each site's certificate from its own local authority, with no
    // network; nothing is installed into the system's trust (skip_install_trust), no admin API, no
    // redirect listener on port 80. c.test proxies to B too and logs every request it gets. On
    // b.test, Caddy itself answers WebFinger for mallory with a `self` link to c.test: the other
    // way a lookup could be sent to a host nobody allowed.
    const caddyDir = join(work, 'caddy');
    mkdirSync(caddyDir);
    const site = (origin: string, port: number, extra = '') => `${origin} {\n\ttls internal\n${extra}\treverse_proxy 127.0.0.1:${port}\n}\n`;
    writeFileSync(
      join(work, 'Caddyfile'),
      `{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\tstorage file_system ${caddyDir}\n\thttp_port ${plain}\n\tauto_https disable_redirects\n}\n` +
        site(a.origin, appA) +
        site(b.origin, appB, mallory(b.host, `${c.origin}/users/1`)) +
        site(c.origin, appB, `\tlog {\n\t\toutput file ${cLog}\n\t}\n`),
    );
    const caddyLog = join(work, 'caddy.log');
    logs.push(caddyLog);
    children.push(start('caddy', ['run', '--config', join(work, 'Caddyfile'), '--adapter', 'caddyfile'], work, process.env, caddyLog));
    const root = join(caddyDir, 'pki', 'authorities', 'local', 'root.crt');
    await until('Caddy made its root certificate', 15_000, async () => existsSync(root) && statSync(root).size > 0);
    const rootPem = readFileSync(root, 'utf8');
    // This process's fetch trusts it too (Node 22.19+; the servers get NODE_EXTRA_CA_CERTS).
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), rootPem]);
    const caddyMs = Date.now() - started;

    const server = (name: string, port: number, origin: string) => {
      const log = join(work, `${name}.log`);
      logs.push(log);
      children.push(
        start('sh', ['-c', opts.appCommand], opts.appCwd, {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: String(port),
          PUBLIC_URL: origin,
          DATA_DIR: join(work, name),
          LOG_LEVEL: 'warn',
          AUTH_PROVIDER: 'embedded',
          STORAGE_DRIVER: 'local',
          FEDERATION: 'on',
          FEDERATION_ALLOWED_PRIVATE_HOSTS: `${a.host},${b.host}`,
          NODE_EXTRA_CA_CERTS: root,
          RATE_LIMIT_AUTH_PER_MINUTE: '10000',
          RATE_LIMIT_WRITES_PER_MINUTE: '10000',
        }, log),
      );
    };
    server('a', appA, a.origin);
    server('b', appB, b.origin);
    // Ready on loopback first (Caddy logs every 502 before that), then through Caddy over https.
    await Promise.all(
      [appA, appB].map((port) => until(`the server on ${port} is ready`, 90_000, async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200)),
    );
    for (const s of [a, b]) expect((await fetch(`${s.origin}/readyz`)).status === 200, `${s.origin}/readyz answers through Caddy`);
    say(`Caddy's authority in ${(caddyMs / 1000).toFixed(1)} s; both servers ready over https in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const alice = api(a.origin, await signUp(a.origin, 'alice'));
    const bob = api(b.origin, await signUp(b.origin, 'bob'));

    // WebFinger over https, as any server asks it.
    const finger = await fetch(`${b.origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:bob@${b.host}`)}`, {
      headers: { accept: 'application/jrd+json' },
    });
    expect(finger.status === 200, `WebFinger of acct:bob@${b.host} answered ${finger.status}`);
    const jrd = (await finger.json()) as { subject: string; links: { rel: string; type?: string; href?: string }[] };
    const self = jrd.links.find((l) => l.rel === 'self' && l.type === 'application/activity+json')?.href ?? '';
    expect(jrd.subject === `acct:bob@${b.host}` && self.startsWith(`${b.origin}/users/`), 'WebFinger names Bob and his https actor', jrd);
    say(`WebFinger over https: acct:bob@${b.host} -> ${self}`);

    // A checker nobody here wrote, on Bob's actor over https (issue 49: activitypub-testing 0.16).
    const checked = await actorChecker(self, root, work);
    expect(checked.failed.length === 0 && checked.passed >= 5, `activitypub-testing: ${checked.passed} passed, failed: ${checked.failed.join(', ') || 'none'}`, checked);
    say(`activitypub-testing ${ACTOR_CHECKER_VERSION} on ${self}: ${checked.passed} passed, 0 failed, ${checked.other} not applicable or can't tell`);

    // Search by handle: `@bob@host`, then `bob@host`; the first looks him up by WebFinger.
    const bobThere = `bob@${b.host}`;
    for (const term of [`@bob@${b.host}`, bobThere]) {
      const t0 = Date.now();
      const found = await alice('GET', `/api/search-profiles?username=${encodeURIComponent(term)}`);
      expect(found.status === 200 && found.json[0]?.username === bobThere, `searching ${term} on A finds ${bobThere} first`, found);
      say(`search "${term}" on A: ${bobThere} in ${Date.now() - t0} ms`);
    }

    const follow = await alice('POST', `/api/account/${encodeURIComponent(bobThere)}/follow`);
    expect(follow.status === 200 && follow.json.requested === true && follow.json.following === false, 'Follow is "Requested" until Bob\'s server answers', follow);
    const profile = () => alice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`);
    await until('Bob\'s server accepts and Alice follows him', 20_000, async () => (await profile()).json.isFollowing === true);
    const aliceThere = `alice@${a.host}`;
    const followers = await bob('GET', '/api/account/bob/followers');
    expect(followers.json.some((f: { username: string }) => f.username === aliceThere), `Bob's followers list ${aliceThere}`, followers);
    say(`Alice follows ${bobThere}; Bob's server lists ${aliceThere} as his follower`);

    // Bob posts a photo; it reaches Alice's Following feed, photo and all.
    const presign = await bob('POST', '/api/presign-upload', { fileName: 'beer.jpg', fileType: 'image/jpeg' });
    expect(presign.status === 200, 'presign-upload on B', presign);
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#f5a524' } }).jpeg().toBuffer();
    const put = await fetch(presign.json.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: photo });
    expect(put.ok, `the upload answered ${put.status}`);
    const caption = `Cold one over https ${randomBytes(3).toString('hex')}`;
    const post = await bob('POST', '/api/create-post', { s3Key: presign.json.s3Key, caption, altText: 'A lager on a tiled shelf', isAnonymous: false });
    expect(post.status === 201, 'create-post on B', post);
    const posted = Date.now();
    const inFeed = await until('Bob\'s post is in Alice\'s Following feed', 20_000, async () =>
      ((await alice('GET', '/api/followFeed')).json as { caption: string; username: string; postid: number; s3Url: string; altText: string }[])
        .find((p) => p.caption === caption));
    expect(inFeed.username === bobThere && inFeed.altText === 'A lager on a tiled shelf', 'the post in the feed is Bob\'s, with its alt text', inFeed);
    const image = await fetch(new URL(inFeed.s3Url, a.origin));
    expect(image.status === 200 && /^image\//.test(image.headers.get('content-type') ?? ''), `its photo ${inFeed.s3Url} answers on A (${image.status})`);
    say(`Bob's post reached Alice's Following feed in ${Date.now() - posted} ms, photo served by A`);

    // Alice likes it; Bob's server counts the like.
    const like = await alice('POST', '/api/like', { postId: inFeed.postid });
    expect(like.status === 201, 'Alice likes it on A', like);
    const liked = Date.now();
    await until('Bob\'s server shows the like', 20_000, async () => (await bob('GET', `/api/like?postId=${post.json.postid}`)).json.likeCount === 1);
    const notes = await bob('GET', '/api/notifications');
    expect(JSON.stringify(notes.json).includes(aliceThere), `Bob's bell names ${aliceThere}`, notes);
    say(`Alice's like counted on B in ${Date.now() - liked} ms, and in Bob's bell`);

    // A host not in the allow list: refused before any request is made to it, though it resolves
    // (to loopback) and would answer.
    const sent = await fetch(`${b.origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:mallory@${b.host}`)}`);
    expect(sent.status === 200 && (await sent.text()).includes(c.host), 'b.test answers WebFinger for mallory with an actor on c.test');
    for (const term of [`@eve@${c.host}`, `${c.origin}/users/1`, `@mallory@${b.host}`]) {
      const refused = await alice('GET', `/api/search-profiles?username=${encodeURIComponent(term)}`);
      expect(refused.status === 200 && !JSON.stringify(refused.json).includes('c.test'), `searching ${term} finds nobody there`, refused);
    }
    // Caddy writes its access log as it answers: give a request that got through a moment to show.
    await new Promise((r) => setTimeout(r, 300));
    expect(!existsSync(cLog) || readFileSync(cLog, 'utf8').trim() === '', `no request reached ${c.host}`, existsSync(cLog) ? readFileSync(cLog, 'utf8').slice(0, 400) : '');
    say(`@eve@${c.host}, ${c.origin}/users/1 and @mallory@${b.host} (sent on to c.test) refused, with no request to ${c.host}`);
    return { ms: Date.now() - started };
  } catch (err) {
    for (const log of logs) console.error(`--- ${log} (last lines)\n${tail(log)}`);
    throw err;
  } finally {
    await Promise.all(children.map(stopGroup));
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { tree: { type: 'string' } } });
  const say = (msg: string) => console.log(`federation-tls: ${msg}`);
  const opts = values.tree
    ? { appCwd: resolve(values.tree), appCommand: 'node server/dist/server.js', say }
    : { appCwd: resolve(import.meta.dirname, '..', '..'), appCommand: 'node --import tsx server/src/server.ts', say };
  checkFederationOverTls(opts).then(
    ({ ms }) => say(`passed in ${(ms / 1000).toFixed(1)} s`),
    (err: unknown) => {
      console.error(`federation-tls: FAIL: ${(err as Error).stack ?? err}`);
      process.exit(1);
    },
  );
}
