/**
 * The SMTP lane (npm run test:smtp): "Forgot password?" and an operator's reset
 * link e-mailed through a real SMTP server from Debian, Exim (exim4-daemon-light),
 * which this script starts on a free high port with a configuration it writes.
 * Exim delivers into a Maildir here; the script reads the delivered message,
 * follows its link like the person would, and checks the new password works.
 *
 * Exim reads a -C configuration only from root (it must own the file), so the
 * lane runs as root, as CI does. Without Exim it says so and fails.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startServer, type ServerProcess } from './stress/server.js';

const EXIM = ['/usr/sbin/exim4', '/usr/sbin/exim'].find((path) => existsSync(path));
const EXIM_USER = 'Debian-exim';
const started = Date.now();

class LaneFailure extends Error {}

/** Before anything is started: exits at once. Inside main: throws, so its finally stops Exim and the server. */
function fail(message: string): never {
  throw new LaneFailure(message);
}

function failNow(message: string): never {
  console.error(`test:smtp FAILED: ${message}`);
  process.exit(1);
}

if (!EXIM) failNow('Exim is not installed (/usr/sbin/exim4). Install it with: apt-get install exim4-daemon-light');
if (process.getuid?.() !== 0) failNow('Exim takes a test configuration (-C) only from root: run this lane as root, as CI does.');
const ids = spawnSync('id', ['-u', EXIM_USER], { encoding: 'utf8' });
const gids = spawnSync('id', ['-g', EXIM_USER], { encoding: 'utf8' });
if (ids.status !== 0 || gids.status !== 0) failNow(`the ${EXIM_USER} user is missing: reinstall exim4-daemon-light`);
const eximUid = Number(ids.stdout.trim());
const eximGid = Number(gids.stdout.trim());

/** Exim on 127.0.0.1:port taking mail for anyone, into dir/mail (a Maildir); no TLS, no DNS, no ident. */
function eximConfig(dir: string, port: number): string {
  return `keep_environment =
tls_advertise_hosts =
primary_hostname = shower-beer.test
daemon_smtp_ports = ${port}
local_interfaces = 127.0.0.1
spool_directory = ${dir}/spool
log_file_path = ${dir}/log/%slog
pid_file_path = ${dir}/exim.pid
exim_user = ${EXIM_USER}
exim_group = ${EXIM_USER}
rfc1413_query_timeout = 0s
host_lookup =
acl_smtp_rcpt = accept_all

begin acl
accept_all:
  accept

begin routers
everyone:
  driver = accept
  transport = to_maildir

begin transports
to_maildir:
  driver = appendfile
  directory = ${dir}/mail
  maildir_format
  user = ${EXIM_USER}
  group = ${EXIM_USER}
  mode = 0644

begin retry
* * F,1m,1m
`;
}

interface Mail {
  headers: string;
  body: string;
}

/** The messages Exim delivered so far, oldest first (quoted-printable decoded). */
function delivered(dir: string): Mail[] {
  const inbox = join(dir, 'mail', 'new');
  if (!existsSync(inbox)) return [];
  return readdirSync(inbox)
    .sort()
    .map((name) => {
      const raw = readFileSync(join(inbox, name), 'utf8').replace(/\r\n/g, '\n');
      const split = raw.indexOf('\n\n');
      const headers = raw.slice(0, split);
      let body = raw.slice(split + 2);
      if (/^Content-Transfer-Encoding: quoted-printable/im.test(headers)) {
        body = body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      }
      return { headers, body };
    });
}

async function waitForMail(dir: string, count: number): Promise<Mail> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mails = delivered(dir);
    if (mails.length >= count) return mails[count - 1]!;
    if (Date.now() > deadline) fail(`mail ${count} did not arrive within 15 s. Exim's log:\n${readLog(dir)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const readLog = (dir: string) => (existsSync(join(dir, 'log', 'mainlog')) ? readFileSync(join(dir, 'log', 'mainlog'), 'utf8') : '(no log)');
const linkIn = (mail: Mail) => /https?:\/\/\S+\/oauth2\/reset\?token=[A-Za-z0-9_-]{43}/.exec(mail.body)?.[0];

/** A tiny browser: keeps the cookie the provider's pages set, never follows redirects. */
function browser(base: string) {
  let cookie = '';
  return async (path: string, fields?: Record<string, string>) => {
    const res = await fetch(new URL(path, base), {
      redirect: 'manual',
      method: fields ? 'POST' : 'GET',
      headers: { ...(cookie ? { cookie } : {}), ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: fields ? new URLSearchParams(fields).toString() : undefined,
    });
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return { status: res.status, location: res.headers.get('location') ?? '', html: await res.text() };
  };
}

const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? fail('no csrf_token in the page');

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-smtp-'));
  let exim: ChildProcess | undefined;
  let server: ServerProcess | undefined;
  try {
    for (const sub of ['spool', 'log', 'mail']) mkdirSync(join(dir, sub));
    for (const sub of ['spool', 'log', 'mail']) chownSync(join(dir, sub), eximUid, eximGid);
    chmodSync(dir, 0o755);
    const smtpPort = await freePort();
    const config = join(dir, 'exim.conf');
    writeFileSync(config, eximConfig(dir, smtpPort), { mode: 0o644 });
    // Its own output goes to its log (read on failure); an inherited stdout would outlive a killed run.
    exim = spawn(EXIM!, ['-C', config, '-bdf'], { stdio: 'ignore' });
    const listening = Date.now() + 10_000;
    while (!readLog(dir).includes('daemon started')) {
      if (exim.exitCode !== null || Date.now() > listening) fail(`Exim did not start:\n${readLog(dir)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(`Exim (${EXIM}) listening on 127.0.0.1:${smtpPort}`);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = await startServer(
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: base,
        DATA_DIR: join(dir, 'data'),
        LOG_LEVEL: 'warn',
        WEB_DIST_DIR: join(dir, 'no-web'),
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        SMTP_FROM: 'Shower Beer <no-reply@shower-beer.test>',
        READ_WORKERS: '0',
      },
      port,
      'tsx',
    );
    const oauth = { response_type: 'token', client_id: 'shower-beer', redirect_uri: `${base}/app/account`, scope: 'email openid profile' };
    const query = new URLSearchParams(oauth).toString();
    const go = browser(base);

    const signUp = async (username: string, email: string, password: string) => {
      const page = await go(`/oauth2/signup?${query}`);
      const res = await go('/oauth2/signup', { ...oauth, csrf_token: csrfOf(page.html), username, email, password });
      assert.equal(res.status, 303, `sign-up of ${username}`);
      return new URLSearchParams(res.location.split('#')[1]).get('access_token')!;
    };
    const signIn = async (username: string, password: string) => {
      const page = await go(`/oauth2/authorize?${query}`);
      return (await go('/oauth2/authorize', { ...oauth, csrf_token: csrfOf(page.html), username, password })).status;
    };
    const ask = async (identifier: string) => {
      const page = await go(`/oauth2/forgot?${query}`);
      assert.match(page.html, /Send reset link/, 'with SMTP_URL the page asks for a name or e-mail');
      return go('/oauth2/forgot', { ...oauth, csrf_token: csrfOf(page.html), username: identifier });
    };
    const reset = async (link: string, password: string) => {
      const page = await go(link);
      assert.equal(page.status, 200, 'the link opens the new-password page');
      return go('/oauth2/reset', { token: new URL(link).searchParams.get('token')!, csrf_token: csrfOf(page.html), password });
    };

    const olgaToken = await signUp('olga', 'olga@example.com', 'operator pale ale 7');
    await signUp('bert', 'bert@example.com', 'correct horse battery');

    // "Forgot password?" for an address nobody has: the same answer, and no mail.
    const nobody = await ask('nobody@example.com');
    const known = await ask('bert@example.com');
    assert.equal(known.status, 200);
    assert.equal(known.html, nobody.html, 'the answer does not tell whether the account exists');
    const first = await waitForMail(dir, 1);
    assert.match(first.headers, /^To: bert@example\.com$/m, 'the mail went to the account’s own address');
    assert.match(first.headers, /^Subject: Reset your Shower Beer password$/m);
    const link = linkIn(first) ?? fail(`no reset link in the mail:\n${first.body}`);
    console.log('"Forgot password?" mail delivered by Exim, with its link');

    const done = await reset(link, 'quiet lager morning 42');
    assert.equal(done.status, 200);
    assert.match(done.html, /Your password is changed/);
    assert.equal(await signIn('bert', 'correct horse battery'), 400, 'the old password no longer works');
    assert.equal(await signIn('bert', 'quiet lager morning 42'), 303, 'the new one does');
    assert.equal((await go(link)).status, 410, 'the link works once');
    console.log('followed the link: new password set, old one refused, link used up');

    // The operator's link is e-mailed too, and is the one in the mail.
    const made = await fetch(`${base}/api/admin/users/bert/password-reset`, { method: 'POST', headers: { authorization: `Bearer ${olgaToken}` } });
    assert.equal(made.status, 200);
    const body = (await made.json()) as { url: string; emailed: boolean };
    assert.equal(body.emailed, true, 'the operator is told the link was e-mailed');
    const second = await waitForMail(dir, 2);
    assert.equal(linkIn(second), body.url, 'the mailed link is the operator’s');
    assert.match(second.body, /An operator of the Shower Beer server/);
    assert.equal((await reset(body.url, 'another fine pilsner 9')).status, 200);
    assert.equal(await signIn('bert', 'another fine pilsner 9'), 303);
    assert.equal(delivered(dir).length, 2, 'nothing was mailed for the address nobody has');
    console.log(`test:smtp passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    server?.child.kill('SIGTERM');
    if (exim && exim.exitCode === null) exim.kill('SIGTERM');
    await Promise.all([server?.exited, exim && exim.exitCode === null ? new Promise((r) => exim!.once('exit', r)) : undefined]);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`test:smtp FAILED: ${err instanceof LaneFailure ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
});
