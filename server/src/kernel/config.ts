import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every setting the server reads, parsed once at start-up. Nothing else in the
 * server reads process.env: pass a Config (or build one with loadConfig({...}))
 * so that tests can run several servers side by side.
 */
export interface Config {
  port: number;
  host: string;
  /** Where browsers reach the app, without a trailing slash. */
  publicUrl: string;
  dataDir: string;
  databaseFile: string;
  logLevel: string;
  /** Honour X-Forwarded-For (only behind a reverse proxy you run). */
  trustProxy: boolean;
  /** Origins allowed to call the API from another origin (the app's own is always allowed). */
  corsOrigins: string[];
  auth: AuthConfig;
  storage: StorageConfig;
  uploads: {
    maxBytes: number;
    urlTtlSeconds: number;
    /** Raw uploads never turned into a post are removed after this long. */
    orphanTtlSeconds: number;
    /** Largest decoded image accepted, in pixels (decompression-bomb guard). */
    maxPixels: number;
    /** Image jobs allowed at once; more wait in line so the event loop stays free. */
    imageConcurrency: number;
    /** Bytes of images (and waiting uploads) one user may store; 0: no limit. */
    quotaBytes: number;
  };
  rateLimits: {
    /** Writes (POST/PUT/DELETE under /api and uploads) per user per minute. */
    writesPerMinute: number;
    /** Sign-in and sign-up submissions per address per minute. */
    authPerMinute: number;
  };
  web: {
    /** Built SPA; served at / when present. */
    distDir: string;
    /** Base URL of the spec's main API host, as the browser sees it ('' = same origin). */
    apiBaseUrl: string;
    /** Base URL of the spec's second API host ('' = same origin). */
    secondApiBaseUrl: string;
  };
  /** Password guesses the embedded provider evaluates (idp/login-throttle.ts). */
  login: {
    /** Per typed name or e-mail and client address, within windowMs. */
    maxAttempts: number;
    windowMs: number;
    /** Per typed name or e-mail over every address: held at once, then drained per hour. */
    accountBurst: number;
    accountPerHour: number;
    /** Sign-ups per client address per hour told that their e-mail is already registered. */
    signUpEmailTakenPerHour: number;
  };
  /** E-mail (idp/mailer.ts): only the embedded provider's reset links are sent. */
  mail: {
    /** SMTP_URL, e.g. smtp://user:pass@mail.example.com:587; '' sends no e-mail. */
    smtpUrl: string;
    /** SMTP_FROM: the sender of those e-mails. */
    from: string;
  };
  migrationsDir: string;
  /** Threads that run feed pages off the request thread (0: on it). */
  readWorkers: number;
  /** REGISTRATION_MODE: who may join a new server; the operator page changes it after (registration/instance-repository.ts). */
  registrationMode: RegistrationMode;
  /** ActivityPub (server/src/federation/): off unless FEDERATION=on, which needs an https:// PUBLIC_URL. */
  federation: FederationConfig;
}

export interface FederationConfig {
  /**
   * FEDERATION=on or off: fixed by the environment, and the operator page's switch is locked. Unset
   * (null, the default): the operator's switch decides (instance_settings.federation_enabled), off
   * until they turn it on.
   */
  forced: 'on' | 'off' | null;
  /**
   * Why federation cannot be turned on with this PUBLIC_URL ('' when it can): other servers sign and
   * fetch over https, so an http:// address other than loopback's cannot federate.
   */
  unavailable: string;
  /**
   * FEDERATION_ALLOWED_PRIVATE_HOSTS: "host:port" entries (comma-separated) of servers on a private
   * or loopback address that federation may reach, for tests and a developer's two servers on one
   * machine. Empty (the default): no other server on a private address is ever reached.
   */
  allowedPrivateHosts: string[];
  /**
   * FEDERATION_INBOX_PER_MINUTE: activities one server may deliver per minute once its burst (as
   * many) is spent; past it, 429 with Retry-After, which senders honour (federation/inbox-limits.ts).
   */
  inboxPerMinute: number;
  /**
   * FEDERATION_RETRY_FIRST_DELAY_MS: the wait before a failed delivery's first retry, doubled for
   * each next one (federation/delivery-failures.ts); 30 s by default. Tests shorten it to see a
   * retry arrive in seconds.
   */
  retryFirstDelayMs: number;
}

export const REGISTRATION_MODES = ['open', 'approval', 'invite', 'closed'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

export interface AuthConfig {
  provider: 'embedded' | 'oidc';
  /** Issuer the tokens must carry (public URL). */
  issuer: string;
  clientId: string;
  /** Audience accepted in `aud`; a token whose `azp` or `client_id` is clientId is accepted too. */
  audience: string;
  /** Where the server fetches the JWKS (may be an internal host name). */
  jwksUrl: string;
  /** URLs handed to the browser ('' for logoutUrl: the provider has no end_session_endpoint). */
  authorizeUrl: string;
  userInfoUrl: string;
  logoutUrl: string;
  /**
   * Where a person manages their sign-in account at the provider (OIDC_ACCOUNT_URL, e.g. Keycloak's
   * account console): the account page links it beside "Delete account", which cannot remove that
   * account. '' with the embedded provider, whose account the app removes itself, or when unset.
   */
  accountUrl: string;
  /**
   * The provider's userinfo as the server reaches it: asked once per token when an
   * access token names no user (Glewlwyd's). '' with the embedded provider.
   */
  userInfoServerUrl: string;
  /**
   * oidc: where the server reads the provider's discovery document at start
   * (discoverAuthEndpoints fills the endpoints the env did not set); null when
   * nothing is left to discover.
   */
  discovery: OidcDiscovery | null;
  /** Lifetime of tokens the embedded provider issues. */
  tokenTtlSeconds: number;
  /**
   * ADMIN_USERNAMES, lower case: operators of the embedded provider besides its first
   * account ([] with an external provider, whose tokens carry a role instead).
   */
  adminUsernames: string[];
}

export interface OidcDiscovery {
  url: string;
  /** The issuer as the server reaches it (OIDC_INTERNAL_ISSUER), for rebasing URLs. */
  internalIssuer: string;
  /** false with OIDC_LOGOUT_URL=none: the end_session_endpoint is not used. */
  endSession: boolean;
  /** Give up after this long (retrying while the provider starts). */
  timeoutMs: number;
}

export interface StorageConfig {
  driver: 'local' | 's3';
  /** Root folder of the local driver. */
  localDir: string;
  s3: {
    /** Endpoint the server talks to, e.g. http://minio:9000 */
    endpoint: string;
    /** Endpoint browsers upload to (presigned URLs are signed for it). */
    publicEndpoint: string;
    region: string;
    bucket: string;
    accessKey: string;
    secretKey: string;
  };
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

function str(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function required(env: Env, name: string, why: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') throw new ConfigError(`${name} must be set ${why}`);
  return value.trim();
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The same endpoint under another base: `from`'s path prefix (or, failing that, its
 * origin) replaced by `to`'s. Turns the internal host's URLs (OIDC_INTERNAL_ISSUER)
 * into the public ones browsers use, and back.
 */
export function rebase(url: string, from: string, to: string): string {
  if (from === to) return url;
  if (url === from || url.startsWith(`${from}/`)) return to + url.slice(from.length);
  try {
    const u = new URL(url);
    const f = new URL(from);
    const t = new URL(to);
    if (u.origin !== f.origin) return url;
    return t.origin + u.pathname + u.search;
  } catch {
    return url;
  }
}

/** The repository root: the folder that holds migrations/ (works from src/ and from dist/). */
export function findAppRoot(start = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'migrations', 'meta', '_journal.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new ConfigError('cannot find the migrations/ folder above ' + start);
    dir = parent;
  }
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const publicUrl = trimSlash(str(env, 'PUBLIC_URL', `http://localhost:${port}`));
  const dataDir = resolve(str(env, 'DATA_DIR', './data'));
  const appRoot = findAppRoot();

  const provider = oneOf(env, 'AUTH_PROVIDER', ['embedded', 'oidc'] as const, 'embedded');
  const clientId = str(env, 'OIDC_CLIENT_ID', 'shower-beer');
  let auth: AuthConfig;
  if (provider === 'embedded') {
    auth = {
      provider,
      issuer: publicUrl,
      clientId,
      audience: clientId,
      jwksUrl: `${publicUrl}/.well-known/jwks.json`,
      authorizeUrl: `${publicUrl}/oauth2/authorize`,
      userInfoUrl: `${publicUrl}/oauth2/userInfo`,
      logoutUrl: `${publicUrl}/oauth2/logout`,
      accountUrl: '',
      userInfoServerUrl: '',
      discovery: null,
      tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 900, 60),
      adminUsernames: str(env, 'ADMIN_USERNAMES', '')
        .split(',')
        .map((n) => n.trim().toLowerCase())
        .filter((n) => n !== ''),
    };
  } else {
    const issuer = trimSlash(required(env, 'OIDC_ISSUER', 'when AUTH_PROVIDER=oidc'));
    const internalIssuer = trimSlash(str(env, 'OIDC_INTERNAL_ISSUER', issuer));
    // Endpoints the env leaves unset come from the provider's discovery document at start.
    const jwksUrl = str(env, 'OIDC_JWKS_URL', '');
    const authorizeUrl = str(env, 'OIDC_AUTHORIZE_URL', '');
    const userInfoUrl = str(env, 'OIDC_USERINFO_URL', '');
    // `none`: never send the browser to the provider's end_session (see docs/self-hosting.md, "Signing out").
    const logoutSetting = str(env, 'OIDC_LOGOUT_URL', '');
    const logoutUrl = logoutSetting === 'none' ? '' : logoutSetting;
    const complete = jwksUrl !== '' && authorizeUrl !== '' && userInfoUrl !== '' && logoutSetting !== '';
    auth = {
      provider,
      issuer,
      clientId,
      audience: str(env, 'OIDC_AUDIENCE', clientId),
      jwksUrl,
      authorizeUrl,
      userInfoUrl,
      logoutUrl,
      accountUrl: str(env, 'OIDC_ACCOUNT_URL', ''),
      userInfoServerUrl: userInfoUrl === '' ? '' : rebase(userInfoUrl, issuer, internalIssuer),
      discovery: complete
        ? null
        : {
            url: str(env, 'OIDC_DISCOVERY_URL', `${internalIssuer}/.well-known/openid-configuration`),
            internalIssuer,
            endSession: logoutSetting !== 'none',
            timeoutMs: int(env, 'OIDC_DISCOVERY_TIMEOUT_SECONDS', 30, 1) * 1000,
          },
      tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 900, 60),
      // Operators come from the provider's role (kernel/auth/operators.ts): a name anyone can register there proves nothing.
      adminUsernames: [],
    };
  }

  const driver = oneOf(env, 'STORAGE_DRIVER', ['local', 's3'] as const, 'local');
  const s3Endpoint = str(env, 'S3_ENDPOINT', 'http://localhost:9000');
  const storage: StorageConfig = {
    driver,
    localDir: join(dataDir, 'storage'),
    s3: {
      endpoint: s3Endpoint,
      publicEndpoint: str(env, 'S3_PUBLIC_ENDPOINT', s3Endpoint),
      region: str(env, 'S3_REGION', 'us-east-1'),
      bucket: str(env, 'S3_BUCKET', 'shower-beer'),
      accessKey: driver === 's3' ? required(env, 'S3_ACCESS_KEY', 'when STORAGE_DRIVER=s3') : '',
      secretKey: driver === 's3' ? required(env, 'S3_SECRET_KEY', 'when STORAGE_DRIVER=s3') : '',
    },
  };

  const corsOrigins = str(env, 'CORS_ORIGINS', '')
    .split(',')
    .map((o) => trimSlash(o.trim()))
    .filter(Boolean);

  return {
    port,
    host: str(env, 'HOST', 'localhost'),
    publicUrl,
    dataDir,
    databaseFile: join(dataDir, 'shower-beer.db'),
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    trustProxy: oneOf(env, 'TRUST_PROXY', ['true', 'false'] as const, 'false') === 'true',
    corsOrigins,
    auth,
    storage,
    uploads: {
      maxBytes: int(env, 'UPLOAD_MAX_BYTES', 100 * 1024 * 1024, 1),
      urlTtlSeconds: int(env, 'UPLOAD_URL_TTL_SECONDS', 900, 1),
      orphanTtlSeconds: int(env, 'UPLOAD_ORPHAN_TTL_SECONDS', 24 * 3600, 1),
      maxPixels: int(env, 'IMAGE_MAX_PIXELS', 100_000_000, 1),
      imageConcurrency: int(env, 'IMAGE_CONCURRENCY', 1, 1),
      quotaBytes: int(env, 'USER_STORAGE_QUOTA_BYTES', 1024 ** 3),
    },
    rateLimits: {
      writesPerMinute: int(env, 'RATE_LIMIT_WRITES_PER_MINUTE', 600, 1),
      authPerMinute: int(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 20, 1),
    },
    web: {
      distDir: resolve(str(env, 'WEB_DIST_DIR', join(appRoot, 'web', 'dist'))),
      apiBaseUrl: trimSlash(str(env, 'API_BASE_URL', '')),
      secondApiBaseUrl: trimSlash(str(env, 'SECOND_API_BASE_URL', '')),
    },
    login: {
      maxAttempts: int(env, 'LOGIN_MAX_ATTEMPTS', 5, 1),
      windowMs: int(env, 'LOGIN_WINDOW_SECONDS', 900, 1) * 1000,
      accountBurst: int(env, 'LOGIN_ACCOUNT_BURST', 30, 1),
      accountPerHour: int(env, 'LOGIN_ACCOUNT_PER_HOUR', 30, 1),
      signUpEmailTakenPerHour: int(env, 'SIGNUP_EMAIL_TAKEN_PER_HOUR', 5, 1),
    },
    mail: {
      smtpUrl: smtpUrl(env),
      from: str(env, 'SMTP_FROM', `Shower Beer <no-reply@${new URL(publicUrl).hostname}>`),
    },
    migrationsDir: join(appRoot, 'migrations'),
    // One per core, at most 4: the request thread and the load share the cores with them.
    readWorkers: int(env, 'READ_WORKERS', Math.min(4, availableParallelism())),
    registrationMode: oneOf(env, 'REGISTRATION_MODE', REGISTRATION_MODES, 'open'),
    federation: federationConfig(env, publicUrl),
  };
}

/**
 * FEDERATION=on needs a PUBLIC_URL other servers can reach and trust: https://. Plain http is let
 * through only for a loopback host (localhost, 127.0.0.1, [::1]), which nothing outside the machine
 * reaches anyway: the tests and a developer's two servers on one machine.
 */
function federationConfig(env: Env, publicUrl: string): FederationConfig {
  const raw = str(env, 'FEDERATION', '');
  if (raw !== '' && raw !== 'on' && raw !== 'off') throw new ConfigError(`FEDERATION must be on or off (or unset, to leave it to the operator page), got "${raw}"`);
  const forced = raw === '' ? null : raw;
  const url = new URL(publicUrl);
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  const unavailable =
    url.protocol === 'https:' || (url.protocol === 'http:' && loopback)
      ? ''
      : `Federation needs PUBLIC_URL to be the server's public https:// address (other servers sign and fetch over https); it is "${publicUrl}".`;
  if (forced === 'on' && unavailable !== '') throw new ConfigError(`FEDERATION=on: ${unavailable}`);
  const allowedPrivateHosts = str(env, 'FEDERATION_ALLOWED_PRIVATE_HOSTS', '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  for (const host of allowedPrivateHosts) {
    if (!/^[a-z0-9.-]+:[0-9]{1,5}$|^\[[0-9a-f:]+\]:[0-9]{1,5}$/.test(host)) {
      throw new ConfigError(`FEDERATION_ALLOWED_PRIVATE_HOSTS takes host:port entries, like b.test:8443; got "${host}".`);
    }
  }
  return {
    forced,
    unavailable,
    allowedPrivateHosts,
    inboxPerMinute: int(env, 'FEDERATION_INBOX_PER_MINUTE', 120, 1),
    retryFirstDelayMs: int(env, 'FEDERATION_RETRY_FIRST_DELAY_MS', 30_000, 100),
  };
}

/** SMTP_URL, checked at start so a typo is not found by the first person who lost a password. */
function smtpUrl(env: Env): string {
  const value = str(env, 'SMTP_URL', '');
  if (value === '') return '';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('SMTP_URL must be a URL like smtp://user:password@mail.example.com:587 (or smtps:// for port 465).');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError('SMTP_URL must start with smtp:// or smtps://.');
  }
  return value;
}
