import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

/** What the server tells the browser at run time (GET /config.json); nothing is baked in at build time. */
export interface AppConfig {
  /** The server's name, description, rules and registration mode (GET /api/instance; the inlined copy has no `operators`). */
  instance?: Omit<Static<typeof shapes.Instance>, 'operators'>;
  appUrl: string;
  auth: {
    provider: string;
    clientId: string;
    authorizeUrl: string;
    userInfoUrl: string;
    logoutUrl: string;
    /** The provider's own account page ('' when the app removes the whole account itself). */
    accountUrl: string;
    redirectUri: string;
    postLogoutRedirectUri: string;
    scope: string;
  };
  api: { baseUrl: string; secondBaseUrl: string };
  limits: { maxUploadBytes: number; captionMaxLength: number; commentMaxLength: number; altTextMaxLength: number; albumMaxPhotos: number; contentWarningMaxLength: number };
}

let config: AppConfig | null = null;

declare global {
  interface Window {
    /** The inlined config, once parsed (by index.html's early requests, or else by the app). */
    showerBeerConfig?: AppConfig | null;
  }
}

/**
 * The config the server inlined into index.html (server/src/web/web-pages.ts) as a JSON
 * data block, read without a round trip; null when the page has none (the Vite dev server's).
 * Parsed once per page: index.html's early requests (src/early-requests.ts) read it first and
 * the app takes what they parsed.
 */
export function inlineConfig(): AppConfig | null {
  if (config) return config;
  if (window.showerBeerConfig === undefined) {
    try {
      window.showerBeerConfig = JSON.parse(document.getElementById('app-config')?.textContent || 'null') as AppConfig | null;
    } catch {
      window.showerBeerConfig = null;
    }
  }
  config = window.showerBeerConfig;
  return config;
}

/** The inlined config, else GET /config.json. */
export async function loadConfig(): Promise<AppConfig> {
  if (config ?? inlineConfig()) return config!;
  const res = await fetch('/config.json', { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`config.json: ${res.status}`);
  config = (await res.json()) as AppConfig;
  return config;
}

/** Sets the config without a page: the server's prerender (prerender/render.tsx) hands it over. */
export function setConfig(value: AppConfig): void {
  config = value;
}

const instanceListeners = new Set<() => void>();

/**
 * The operator page saved the server's settings: the app's copy follows at once, so what reads
 * it (the tab's title, app/route-title.tsx) names the server as saved, without a reload (issue 48).
 */
export function instanceChanged(instance: NonNullable<AppConfig['instance']>): void {
  if (!config) return;
  config = { ...config, instance };
  for (const listener of instanceListeners) listener();
}

/** Calls `listener` after each instanceChanged; answers the unsubscribe. */
export function onInstanceChanged(listener: () => void): () => void {
  instanceListeners.add(listener);
  return () => instanceListeners.delete(listener);
}

/** The product's name: what a server is called until its operator names it. */
export const PRODUCT_NAME = 'Shower Beer';

/** The server's own name (the operator page sets it; server/src/registration/instance-repository.ts). */
export function serverName(): string {
  return config?.instance?.name ?? PRODUCT_NAME;
}

/** The loaded config; main.tsx loads it before the first render. */
export function getConfig(): AppConfig {
  if (!config) throw new Error('config not loaded');
  return config;
}
