// The one axe check of the suite (issue 43: once per screen and colour scheme, from one shared
// fixture: `axe` in tests/e2e/fixtures.ts). Every spec that shows a screen, a dialog or a menu
// nobody else shows calls it; tests/e2e/a11y.spec.ts walks the screens everyone shares.
import { expect, type Page, type TestInfo } from '@playwright/test';
import axeCore from 'axe-core';

export const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/** The rules among those whose outcome can change with the theme (both AA). */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * Switches the theme and waits until it has settled: reduced motion; the page sees the scheme;
 * two frames for the styles; and every finite animation or transition still running (the dialog
 * opened just before, a colour on its way) at its end. Only then do axe and screenshots see the
 * colours the theme ends on, not a transition's frame: with nothing else between the switch and
 * the check, axe once read a dialog's text still in the light theme's colour on the dark surface.
 */
export async function useTheme(page: Page, colorScheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
  await page.evaluate(async (dark) => {
    const frame = () => new Promise((done) => requestAnimationFrame(done));
    for (let i = 0; i < 60 && matchMedia('(prefers-color-scheme: dark)').matches !== dark; i++) await frame();
    await frame();
    await frame();
    const running = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity);
    await Promise.race([Promise.all(running.map((a) => a.finished.catch(() => undefined))), new Promise((done) => setTimeout(done, 2_000))]);
  }, colorScheme === 'dark');
}

/**
 * axe-core in the page, once per document. (@axe-core/playwright's AxeBuilder evaluates its
 * 1.3 MB source twice on every run: on a slow runner that was most of a screen's check.)
 */
async function inject(page: Page): Promise<void> {
  if (await page.evaluate(() => typeof (window as { axe?: { run?: unknown } }).axe?.run === 'function')) return;
  await page.evaluate(`${axeCore.source};axe.configure({ allowedOrigins: ['<same_origin>'] });`);
}

/** axe.run in the page itself (the app has no frames), with only violations sent back. */
function run(page: Page, only: string | undefined, runOnly: axeCore.RunOnly): Promise<axeCore.AxeResults> {
  return page.evaluate(
    ({ only, runOnly }) => {
      const axe = (window as unknown as { axe: typeof axeCore }).axe;
      return axe.run(only ? { include: [only] } : document, { runOnly, resultTypes: ['violations'] });
    },
    { only, runOnly },
  );
}

/** Screens this worker has checked already, with the width they were checked at. */
const checked = new Set<string>();

/**
 * Runs axe on what is on screen now (or only the part `only` selects: a dialog or menu over
 * a screen already checked), in the light and the dark theme, and records every violation
 * (rule, impact, each element's selector and markup, axe's summary) as a soft failure, so
 * one run reports all the screens that need work. A screen (by its name and the page's width)
 * is checked once per worker: a second test reaching it does not pay for it again.
 */
export async function audit(page: Page, testInfo: TestInfo, screen: string, only?: string): Promise<void> {
  const width = page.viewportSize()?.width;
  const key = `${screen}@${width}`;
  if (checked.has(key)) {
    testInfo.annotations.push({ type: 'axe', description: `${screen}: checked earlier in this worker` });
    return;
  }
  const lines: string[] = [];
  let found = 0;
  const started = Date.now();
  for (const colorScheme of ['light', 'dark'] as const) {
    await useTheme(page, colorScheme);
    await inject(page);
    // Every rule in the light theme; in the dark one only those that depend on colour.
    const { violations } = await run(
      page,
      only,
      colorScheme === 'light' ? { type: 'tag', values: WCAG_22_AA } : { type: 'rule', values: COLOUR_RULES },
    );
    found += violations.length;
    for (const v of violations) {
      lines.push(`[${colorScheme}] ${v.id} (${v.impact ?? 'no impact'}): ${v.help}`);
      for (const node of v.nodes.slice(0, 6)) {
        const html = node.html.replace(/\s+/g, ' ').slice(0, 140);
        const summary = (node.failureSummary ?? '').replace(/\s+/g, ' ').trim();
        lines.push(`    ${node.target.join(' ')}: ${html}\n      ${summary}`);
      }
      if (v.nodes.length > 6) lines.push(`    … and ${v.nodes.length - 6} more`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  checked.add(key);
  testInfo.annotations.push({ type: 'axe', description: `${screen}: ${Date.now() - started} ms` });
  expect.soft(found, `axe on ${screen} (${width}px wide)${found ? `, violations:\n${lines.join('\n')}\n` : ''}`).toBe(0);
}
