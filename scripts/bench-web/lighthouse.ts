// Lighthouse runs for `npm run bench:web`: Debian's Chromium through chrome-launcher,
// driven by Puppeteer (both are Lighthouse's own dependencies, the versions it is
// tested with), one fresh browser context per run so no cookie, storage or cache of
// an earlier run is left.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Flags, type Result } from 'lighthouse';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { Account } from './seed.js';
import { TOKEN_KEY } from '../../web/src/lib/first-requests.js';

export const CHROME_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu'];

/** Where web/src/lib/session.ts keeps the access token (sessionStorage, this key). */

// The few browser globals the functions below use inside the page (scripts/ compiles without the DOM library).
declare const location: { origin: string; pathname: string; href: string };
declare const sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): Iterable<{ src: string }>;
  body: { innerText: string };
};

export interface Chrome {
  browser: Browser;
  version: string;
  close(): Promise<void>;
}

export async function startChrome(): Promise<Chrome> {
  const chrome = await chromeLauncher.launch({ chromePath: CHROME_PATH, chromeFlags: CHROME_FLAGS, logLevel: 'error' });
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
  return {
    browser,
    // "Chrome/156.0…" or "HeadlessChrome/156.0…": it is Debian's Chromium either way.
    version: (await browser.version()).replace(/^(Headless)?Chrome\//, 'Chromium '),
    close: async () => {
      await browser.disconnect();
      // kill() removes the profile directory again once Chromium has closed: wait for that.
      const closed = new Promise<void>((resolve) => {
        if (chrome.process.exitCode !== null || chrome.process.signalCode !== null) return resolve();
        chrome.process.once('close', () => resolve());
        setTimeout(resolve, 10_000).unref();
      });
      chrome.kill();
      await closed;
    },
  };
}

/** The href of the landing page's Login link: the provider's sign-in page with this tab's state and nonce. */
export async function loginLinkHref(browser: Browser, baseUrl: string): Promise<string> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/`, { waitUntil: 'networkidle0' });
    const href = await page.$$eval('a', (links) => links.find((a) => a.textContent?.trim() === 'Login')?.href);
    if (!href) throw new Error(`no Login link on ${baseUrl}/`);
    return href;
  } finally {
    await context.close();
  }
}

/**
 * Signs in the way a person does, in a browser: `/` → Login → the provider's form →
 * back to /app/account, where the app itself takes the token out of the redirect's
 * fragment (consumeRedirectFragment) and keeps it in sessionStorage. Returns that token.
 */
async function signInThroughPages(browser: Browser, baseUrl: string, account: Account): Promise<string> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/`, { waitUntil: 'networkidle0' });
    await Promise.all([
      page.waitForNavigation(),
      page.$$eval('a', (links) => links.find((a) => a.textContent?.trim() === 'Login')?.click()),
    ]);
    await page.waitForSelector('#username');
    await page.type('#username', account.username);
    await page.type('#password', account.password);
    await Promise.all([page.waitForNavigation(), page.click('form button[type="submit"], form input[type="submit"]')]);
    const token = await page
      .waitForFunction((key: string) => (location.pathname.startsWith('/app/') ? sessionStorage.getItem(key) : null), { timeout: 30_000 }, TOKEN_KEY)
      .then((handle) => handle.jsonValue() as Promise<unknown>)
      .catch(() => null);
    if (typeof token !== 'string' || token === '') {
      const text = await page.evaluate(() => document.body.innerText.slice(0, 300)).catch(() => '');
      throw new Error(`signing ${account.username} in through the pages did not reach the app (at ${page.url()}): ${text}`);
    }
    return token;
  } finally {
    await context.close();
  }
}

/** Seconds until a JWT's `exp` (Infinity when it carries none or is no JWT). */
function secondsLeft(token: string): number {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp - Date.now() / 1000 : Infinity;
  } catch {
    return Infinity;
  }
}

/**
 * Tokens of the people the signed-in screens are measured as. Each is got once by
 * signing in through the real pages, and again when fewer than 5 minutes are left
 * (the embedded provider's tokens last 15 minutes; a run of every screen takes longer).
 */
export class Sessions {
  private readonly tokens = new Map<string, string>();
  signIns = 0;

  constructor(
    private readonly browser: Browser,
    private readonly baseUrl: string,
  ) {}

  async token(account: Account): Promise<string> {
    const have = this.tokens.get(account.username);
    if (have && secondsLeft(have) > 300) return have;
    const token = await signInThroughPages(this.browser, this.baseUrl, account);
    this.signIns++;
    this.tokens.set(account.username, token);
    return token;
  }
}

export interface Expectation {
  /** Text the page's first h1 must contain. */
  heading: string;
  /** At least this many <img> of the app's /media/ (photos, thumbnails, avatars) on the page. */
  minMedia?: number;
  /** Text that must not be on the page (an empty state, "Operators only"…). */
  absent?: string;
}

export interface RunOutcome {
  lhr: Result;
  /** Lighthouse could not measure this load (its runtimeError). */
  lighthouseError?: string;
  /** What went wrong with the page itself (not a score): signed out, wrong screen, API errors. */
  problems: string[];
}

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

/**
 * One Lighthouse navigation in a new browser context. With a token, the page gets it the
 * way the app keeps it: written to sessionStorage under session.ts's key by a script that
 * runs before any of the page's own (Page.addScriptToEvaluateOnNewDocument), once per run
 * and only on the app's origin. The token itself came from a real sign-in through the
 * pages (Sessions); only the trip through the provider is left out of the measured load,
 * so the figures are those of opening the screen in a signed-in tab with a cold cache
 * (Lighthouse clears the cache too, and /api/me is fetched as after a fresh sign-in).
 * A token the server refuses would send the app back to `/`: that, any 4xx/5xx answer
 * from /api/ and a page without the screen's heading make the run fail loudly.
 */
export async function measure(browser: Browser, url: string, expect: Expectation, token?: string): Promise<RunOutcome> {
  const context = await browser.createBrowserContext();
  const problems: string[] = [];
  try {
    const page = await context.newPage();
    const origin = new URL(url).origin;
    if (token) {
      await page.evaluateOnNewDocument(
        (appOrigin: string, key: string, value: string) => {
          if (location.origin !== appOrigin) return;
          try {
            if (sessionStorage.getItem('bench-web.given')) return;
            sessionStorage.setItem('bench-web.given', '1');
            sessionStorage.setItem(key, value);
          } catch {
            // no storage on this document
          }
        },
        origin,
        TOKEN_KEY,
        token,
      );
    }
    page.on('response', (res) => {
      const u = new URL(res.url());
      if (u.origin === origin && u.pathname.startsWith('/api/') && res.status() >= 400) problems.push(`${res.status()} from ${u.pathname}`);
    });
    const flags: Flags = {
      logLevel: 'error',
      output: 'json',
      onlyCategories: [...CATEGORIES],
      maxWaitForLoad: 60_000,
    };
    const result = await lighthouse(url, flags, undefined, page);
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { lhr } = result;
    // A broken trace (NO_NAVSTART, NO_FCP under load…) says nothing about the page: the caller tries again.
    if (lhr.runtimeError) return { lhr, problems, lighthouseError: `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` };
    const wanted = new URL(url);
    const final = new URL(lhr.finalDisplayedUrl);
    if (final.origin + final.pathname !== wanted.origin + wanted.pathname) problems.push(`ended on ${final.pathname} instead of ${wanted.pathname}`);
    const seen = await check(page, expect);
    if (seen) problems.push(seen);
    return { lhr, problems };
  } finally {
    await context.close();
  }
}

/** Null when the page shows the screen expected; else what it shows instead. */
async function check(page: Page, expect: Expectation): Promise<string | null> {
  const ok = await page
    .waitForFunction(
      (e: Expectation) => {
        const h1 = document.querySelector('h1')?.textContent ?? '';
        const media = [...document.querySelectorAll('img')].filter((img) => new URL(img.src, location.href).pathname.startsWith('/media/')).length;
        return h1.includes(e.heading) && media >= (e.minMedia ?? 0) && !(e.absent && document.body.innerText.includes(e.absent));
      },
      { timeout: 15_000 },
      expect,
    )
    .then(() => true)
    .catch(() => false);
  if (ok) return null;
  const seen = await page
    .evaluate(() => ({
      url: location.pathname,
      h1: document.querySelector('h1')?.textContent ?? '(no h1)',
      media: [...document.querySelectorAll('img')].filter((img) => new URL(img.src, location.href).pathname.startsWith('/media/')).length,
    }))
    .catch(() => ({ url: page.url(), h1: '(page gone)', media: 0 }));
  return `expected "${expect.heading}"${expect.minMedia ? ` with ≥ ${expect.minMedia} photos` : ''}${
    expect.absent ? ` and no "${expect.absent}"` : ''
  }, saw ${seen.url}: "${seen.h1}", ${seen.media} photos`;
}
