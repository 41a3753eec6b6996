// Glewlwyd (Debian's `glewlwyd` package), a real OpenID Connect provider that is not
// Keycloak and not ours, as a plain process on 127.0.0.1 from a temp dir, configured
// through its admin REST API for the app's implicit-flow client.
//
//   import { startGlewlwyd } from './glewlwyd.ts';
//   const idp = await startGlewlwyd({ appUrl: 'http://localhost:3130' });
//   await idp.createUser({ username, email, password });
//   ... OIDC_ISSUER=idp.issuer ...
//   await idp.stop();
//
// CLI: `npx tsx scripts/stack/glewlwyd.ts [--app-url http://localhost:3130] [--port N]`
// starts it, prints the URLs as JSON on one line, and stops it on SIGINT/SIGTERM.
//
// Facts this relies on are in REAL-SERVERS.md (measured with glewlwyd 2.7.5):
// the packaged webapp/config.json is a directory (so the web app is copied and fixed),
// HEAD answers 404 (readiness is polled with GET), a failed plugin POST still leaves
// an instance behind, and the oidc plugin needs jwks-show, session-management-allowed
// and mandatory name/email claims for userinfo to carry them.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export interface GlewlwydUser {
  username: string;
  email: string;
  password: string;
}

export interface Glewlwyd {
  /** The `iss` of its tokens, and the OIDC_ISSUER to give the app (`…/api/oidc`). */
  issuer: string;
  /** `<issuer>/.well-known/openid-configuration`. */
  discoveryUrl: string;
  /** The admin REST API's base (`…/api`), for creating users from tests. */
  adminUrl: string;
  /** Where it listens (`http://127.0.0.1:PORT`). */
  baseUrl: string;
  clientId: string;
  /** Its log file (printed when something fails). */
  logFile: string;
  /** Milliseconds from spawn to a configured provider (discovery answering, client registered). */
  startMs: number;
  createUser(user: GlewlwydUser): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The app's public URL (no trailing slash): redirect URIs are registered for it. */
  appUrl: string;
  clientId?: string;
  /** Default: a free port. */
  port?: number;
  /** Lifetime of access tokens in seconds (default 3600, Glewlwyd's). */
  accessTokenSeconds?: number;
}

const BIN = '/usr/bin/glewlwyd';
const CONF = '/etc/glewlwyd/glewlwyd.conf';
const DB_SQL = '/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz';
const WEBAPP = '/usr/share/glewlwyd/webapp';
const ADMIN = { username: 'admin', password: 'password' };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

function run(cmd: string, args: string[], opts: { input?: Buffer } = {}): void {
  const res = spawnSync(cmd, args, { input: opts.input, stdio: [opts.input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
  if (res.error) throw new Error(`${cmd}: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${res.status}): ${res.stderr?.toString()}`);
}

/** The packaged config with our port, URL, log file, web app and SQLite database. */
function writeConfig(dir: string, port: number, baseUrl: string): string {
  const lines = readFileSync(CONF, 'utf8').split('\n');
  const set = (name: string, value: string) => {
    const re = new RegExp(`^\\s*${name}\\s*=`);
    const i = lines.findIndex((l) => re.test(l));
    const line = `${name}=${value}`;
    if (i >= 0) lines[i] = line;
    else lines.push(line);
  };
  set('port', String(port));
  set('external_url', JSON.stringify(baseUrl)); // no trailing slash: endpoints would read …//api/oidc
  set('log_mode', '"file"');
  set('log_level', '"INFO"');
  set('log_file', JSON.stringify(join(dir, 'glewlwyd.log')));
  set('static_files_path', JSON.stringify(join(dir, 'webapp')));
  set('cookie_secure', '0');
  // The packaged file says cookie_domain="localhost"; the browser reaches Glewlwyd at
  // 127.0.0.1 and refuses such a cookie, so the password form came back after every
  // sign-in. Without the setting the session cookie is the host's own.
  const domain = lines.findIndex((l) => /^\s*cookie_domain\s*=/.test(l));
  if (domain >= 0) lines.splice(domain, 1);
  // The packaged file names its database either through dbconfig's include or, installed
  // with "No configuration", in a `database = { … };` block of its own (a second one is a
  // "duplicate setting" and it exits 2): take out whichever is there and add ours.
  const dbLine = lines.findIndex((l) => /^\s*@include\s+"\/etc\/glewlwyd\/glewlwyd-db\.conf"/.test(l));
  if (dbLine >= 0) lines.splice(dbLine, 1);
  const blockStart = lines.findIndex((l) => /^\s*database\s*=/.test(l));
  if (blockStart >= 0) {
    const blockEnd = lines.findIndex((l, i) => i > blockStart && /^\s*};?\s*$/.test(l));
    lines.splice(blockStart, (blockEnd >= 0 ? blockEnd : blockStart) - blockStart + 1);
  }
  lines.push(`database =\n{\n  type = "sqlite3"\n  path = ${JSON.stringify(join(dir, 'glewlwyd.db'))}\n};`);
  const file = join(dir, 'glewlwyd.conf');
  writeFileSync(file, lines.join('\n'));
  return file;
}

/**
 * Kills the provider and removes its folder if this process dies without calling
 * stop() (even by SIGKILL): a detached watcher polls our pid.
 */
function watchParent(childPid: number, dir: string): ChildProcess {
  const code = `
    const [parent, child, dir] = process.argv.slice(1);
    const alive = (pid) => { try { process.kill(Number(pid), 0); return true; } catch { return false; } };
    const timer = setInterval(() => {
      if (alive(parent)) return;
      clearInterval(timer);
      try { process.kill(Number(child), 'SIGKILL'); } catch {}
      setTimeout(() => { require('node:fs').rmSync(dir, { recursive: true, force: true }); process.exit(0); }, 300);
    }, 500);
    process.on('SIGTERM', () => process.exit(0));`;
  const watcher = spawn(process.execPath, ['-e', code, String(process.pid), String(childPid), dir], {
    detached: true,
    stdio: 'ignore',
  });
  watcher.unref();
  return watcher;
}

/** A cookie-holding client for the admin API. */
class Admin {
  private cookie = '';
  constructor(private readonly api: string) {}

  async call(method: string, path: string, body?: unknown): Promise<Response> {
    const res = await fetch(`${this.api}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const set = res.headers.getSetCookie();
    if (set.length > 0) this.cookie = set.map((c) => c.split(';')[0]).join('; ');
    return res;
  }

  async ok(method: string, path: string, body?: unknown): Promise<void> {
    const res = await this.call(method, path, body);
    if (!res.ok) throw new Error(`Glewlwyd admin ${method} ${path}: ${res.status} ${await res.text()}`);
  }

  signIn = () => this.ok('POST', '/auth/', ADMIN);
}

function oidcPlugin(issuer: string, accessTokenSeconds: number) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    module: 'oidc',
    name: 'oidc',
    display_name: 'OpenID Connect',
    parameters: {
      iss: issuer,
      'jwt-type': 'rsa',
      'jwt-key-size': '256',
      key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      cert: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      'jwks-show': true,
      'access-token-duration': accessTokenSeconds,
      'refresh-token-duration': 1209600,
      'code-duration': 600,
      'refresh-token-rolling': true,
      'allow-non-oidc': true,
      'auth-type-code-enabled': true,
      'auth-type-token-enabled': true,
      'auth-type-id-token-enabled': true,
      'auth-type-none-enabled': true,
      'auth-type-password-enabled': false,
      'auth-type-client-enabled': false,
      'auth-type-refresh-enabled': true,
      'allowed-scope': ['openid', 'email', 'profile'],
      scope: [],
      'additional-parameters': [],
      // The username as preferred_username in userinfo (the access token carries none).
      claims: [
        {
          name: 'preferred_username',
          'user-property': 'username',
          type: 'string',
          'boolean-value-true': '',
          'boolean-value-false': '',
          mandatory: true,
          'on-demand': false,
          scope: [],
        },
      ],
      'name-claim': 'mandatory',
      'name-claim-scope': [],
      'email-claim': 'mandatory',
      'email-claim-scope': [],
      'scope-claim': 'no',
      'scope-claim-scope': [],
      'address-claim': { type: 'no', formatted: '', street_address: '', locality: '', region: '', postal_code: '', country: '', mandatory: false },
      // One subject for every client (pairwise would be opaque per client).
      'secret-type': 'public',
      'request-parameter-allow': true,
      'session-management-allowed': true,
      'session-cookie-name': 'GLEWLWYD2_OIDC_SID',
      'session-cookie-expiration': 2419200,
      'front-channel-logout-allowed': true,
      'back-channel-logout-allowed': false,
      'pkce-allowed': false,
      'introspection-revocation-allowed': false,
      'register-client-allowed': false,
      'service-documentation': 'https://github.com/babelouest/glewlwyd/tree/master/docs',
      'op-policy-uri': '',
      'op-tos-uri': '',
      'jwks-x5c': [],
    },
  };
}

export async function startGlewlwyd(opts: StartOptions): Promise<Glewlwyd> {
  const started = Date.now();
  const appUrl = opts.appUrl.replace(/\/+$/, '');
  const clientId = opts.clientId ?? 'shower-beer';
  const port = opts.port ?? (await freePort());
  if (port === 4593) throw new Error('port 4593 is the packaged Glewlwyd default; use another');
  const baseUrl = `http://127.0.0.1:${port}`;
  const api = `${baseUrl}/api`;
  const issuer = `${api}/oidc`;
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-glewlwyd-'));
  const logFile = join(dir, 'glewlwyd.log');
  let child: ChildProcess | null = null;
  let watcher: ChildProcess | null = null;

  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
    if (watcher?.pid) {
      try {
        process.kill(watcher.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => {
    try {
      child?.kill('SIGKILL');
    } catch {
      /* gone */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);

  // Its own log file, and what it printed before it could open it (a bad configuration, a port taken).
  const log = () =>
    [logFile, join(dir, 'stdout.log')]
      .map((file) => `${file}:\n${existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-40).join('\n') : '(none)'}`)
      .join('\n');

  try {
    for (const f of [BIN, CONF, DB_SQL, WEBAPP]) {
      if (!existsSync(f)) throw new Error(`${f} is missing: install Debian's glewlwyd (see REAL-SERVERS.md)`);
    }
    // Database: the packaged schema with the admin account, the user and client modules and scope openid.
    run('sh', ['-c', `zcat "$1" | sqlite3 "$2"`, 'sh', DB_SQL, join(dir, 'glewlwyd.db')]);
    // The packaged webapp/config.json is a directory holding the real file; css/js are symlinks.
    const webapp = join(dir, 'webapp');
    run('cp', ['-rL', WEBAPP, webapp]);
    const inner = join(webapp, 'config.json', 'config.json');
    if (existsSync(inner)) {
      const text = readFileSync(inner);
      rmSync(join(webapp, 'config.json'), { recursive: true, force: true });
      writeFileSync(join(webapp, 'config.json'), text);
    }
    JSON.parse(readFileSync(join(webapp, 'config.json'), 'utf8')); // fail here, not in the browser
    const config = writeConfig(dir, port, baseUrl);

    const out = openSync(join(dir, 'stdout.log'), 'a');
    child = spawn(BIN, ['-c', config], { cwd: dir, stdio: ['ignore', out, out] });
    closeSync(out);
    watcher = watchParent(child.pid!, dir);

    const admin = new Admin(api);
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`glewlwyd exited (${child.exitCode})`);
      try {
        // HEAD answers 404 here: poll with GET.
        const res = await fetch(`${api}/auth/scheme/`, { signal: AbortSignal.timeout(1_000) });
        if (res.status < 500) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error('glewlwyd did not answer within 20 s');
      await new Promise((r) => setTimeout(r, 50));
    }

    await admin.signIn();
    for (const name of ['email', 'profile']) {
      await admin.ok('POST', '/scope/', { name, display_name: name, description: `${name} scope`, password_required: false, scheme: {} });
    }
    const plugin = oidcPlugin(issuer, opts.accessTokenSeconds ?? 3600);
    const res = await admin.call('POST', '/mod/plugin/', plugin);
    if (!res.ok) {
      const body = await res.text();
      // A POST that fails validation still leaves an instance behind.
      await admin.call('DELETE', '/mod/plugin/oidc');
      throw new Error(`oidc plugin refused: ${res.status} ${body}`);
    }
    await admin.ok('POST', '/client/', {
      client_id: clientId,
      name: 'Shower Beer',
      description: 'Shower Beer web app (implicit flow)',
      confidential: false,
      enabled: true,
      redirect_uri: [`${appUrl}/app/account`],
      authorization_type: ['token', 'id_token'],
      scope: [],
      post_logout_redirect_uris: `${appUrl}/`,
    });
    const discoveryUrl = `${issuer}/.well-known/openid-configuration`;
    const disco = await fetch(discoveryUrl, { signal: AbortSignal.timeout(5_000) });
    if (!disco.ok) throw new Error(`discovery answered ${disco.status}`);
    const doc = (await disco.json()) as { issuer?: string; end_session_endpoint?: string };
    if (doc.issuer !== issuer) throw new Error(`discovery says issuer ${doc.issuer}, expected ${issuer}`);
    if (!doc.end_session_endpoint) throw new Error('discovery has no end_session_endpoint');

    return {
      issuer,
      discoveryUrl,
      adminUrl: api,
      baseUrl,
      clientId,
      logFile,
      startMs: Date.now() - started,
      async createUser(user) {
        const a = new Admin(api);
        await a.signIn();
        await a.ok('POST', '/user/', {
          username: user.username,
          name: user.username,
          email: user.email,
          password: user.password,
          scope: ['openid', 'email', 'profile'],
          enabled: true,
        });
      },
      stop,
    };
  } catch (err) {
    const message = `Glewlwyd did not start: ${(err as Error).message}\n${log()}`;
    await stop();
    throw new Error(message, { cause: err });
  }
}

async function cli() {
  const { values } = parseArgs({
    options: { 'app-url': { type: 'string', default: 'http://localhost:3130' }, port: { type: 'string' } },
  });
  const idp = await startGlewlwyd({ appUrl: values['app-url']!, port: values.port ? Number(values.port) : undefined });
  console.log(JSON.stringify({ issuer: idp.issuer, discoveryUrl: idp.discoveryUrl, adminUrl: idp.adminUrl, logFile: idp.logFile, startMs: idp.startMs }));
  const shutdown = () => void idp.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  cli().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
