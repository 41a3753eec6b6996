import { ConfigError, rebase, type AuthConfig, type Config } from '../config.js';

/** The fields of an OpenID provider's discovery document the app uses. */
interface DiscoveryDocument {
  issuer?: unknown;
  authorization_endpoint?: unknown;
  jwks_uri?: unknown;
  userinfo_endpoint?: unknown;
  end_session_endpoint?: unknown;
}

export interface DiscoverOptions {
  fetch?: typeof fetch;
  /** Pause between attempts while the provider is not answering yet. */
  retryDelayMs?: number;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

async function fetchDocument(url: string, deadline: number, opts: DiscoverOptions): Promise<DiscoveryDocument> {
  const doFetch = opts.fetch ?? fetch;
  let lastError = 'no answer';
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    try {
      const res = await doFetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(Math.min(left, 5_000)) });
      if (res.ok) {
        const text = await res.text();
        let doc: unknown;
        try {
          doc = JSON.parse(text);
        } catch {
          throw new ConfigError(`the OpenID discovery document at ${url} is not JSON`);
        }
        if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
          throw new ConfigError(`the OpenID discovery document at ${url} is not a JSON object`);
        }
        return doc as DiscoveryDocument;
      }
      lastError = `HTTP ${res.status}`;
      // A 404 will not fix itself (wrong OIDC_ISSUER or OIDC_DISCOVERY_URL); a 5xx may (provider starting).
      if (res.status >= 400 && res.status < 500) break;
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      lastError = (err as Error).name === 'TimeoutError' ? 'timed out' : ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, Math.min(opts.retryDelayMs ?? 1_000, Math.max(0, deadline - Date.now()))));
  }
  throw new ConfigError(
    `could not read the OpenID provider's discovery document at ${url} (${lastError}). ` +
      'Check OIDC_ISSUER (and OIDC_INTERNAL_ISSUER or OIDC_DISCOVERY_URL if the server reaches the provider another way), ' +
      'or set OIDC_AUTHORIZE_URL, OIDC_JWKS_URL, OIDC_USERINFO_URL and OIDC_LOGOUT_URL.',
  );
}

function endpoint(doc: DiscoveryDocument, name: keyof DiscoveryDocument, url: string, required: boolean): string {
  const value = doc[name];
  if (typeof value === 'string' && /^https?:\/\//.test(value)) return value;
  if (value === undefined && !required) return '';
  throw new ConfigError(`the OpenID discovery document at ${url} has no usable ${name}`);
}

/**
 * With AUTH_PROVIDER=oidc, fills the endpoints the env did not set from the provider's
 * discovery document (`<OIDC_INTERNAL_ISSUER>/.well-known/openid-configuration`, or
 * OIDC_DISCOVERY_URL). URLs handed to the browser are rebased onto the public issuer,
 * URLs the server calls onto the internal one (Keycloak in Compose answers the
 * internal host with its back-channel URLs on that host). Throws ConfigError with a
 * message for the person starting the server when the document cannot be read, names
 * another issuer, or lacks a required endpoint.
 */
export async function discoverAuthEndpoints(config: Config, opts: DiscoverOptions = {}): Promise<Config> {
  const { auth } = config;
  if (auth.provider !== 'oidc' || auth.discovery === null) return config;
  const { url, internalIssuer, timeoutMs, endSession } = auth.discovery;
  const doc = await fetchDocument(url, Date.now() + timeoutMs, opts);
  if (typeof doc.issuer !== 'string' || trimSlash(doc.issuer) !== auth.issuer) {
    throw new ConfigError(
      `the OpenID discovery document at ${url} names the issuer ${JSON.stringify(doc.issuer)}, but OIDC_ISSUER is ${auth.issuer}: ` +
        'tokens would be refused. Set OIDC_ISSUER to the issuer the provider puts in its tokens.',
    );
  }
  const toPublic = (u: string) => rebase(u, internalIssuer, auth.issuer);
  const toInternal = (u: string) => rebase(u, auth.issuer, internalIssuer);
  const discoveredUserInfo = endpoint(doc, 'userinfo_endpoint', url, auth.userInfoUrl === '');
  const next: AuthConfig = {
    ...auth,
    authorizeUrl: auth.authorizeUrl || toPublic(endpoint(doc, 'authorization_endpoint', url, true)),
    jwksUrl: auth.jwksUrl || toInternal(endpoint(doc, 'jwks_uri', url, true)),
    userInfoUrl: auth.userInfoUrl || toPublic(discoveredUserInfo),
    userInfoServerUrl: auth.userInfoServerUrl || toInternal(discoveredUserInfo),
    logoutUrl: auth.logoutUrl || (endSession ? toPublic(endpoint(doc, 'end_session_endpoint', url, false)) : ''),
    discovery: null,
  };
  return { ...config, auth: next };
}
