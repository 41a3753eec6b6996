// A Playwright reporter for CI: every test that failed and then passed on a retry is written,
// one line each, to the file E2E_FLAKY_FILE names (.ci/run sets it, and prints the file once
// every lane has run). A retry that passed hides a failure: it is listed to be fixed, not accepted.
import { appendFileSync } from 'node:fs';
import type { FullResult, Reporter, Suite, TestCase } from '@playwright/test/reporter';

export default class FlakyReporter implements Reporter {
  private suite: Suite | null = null;

  onBegin(_config: unknown, suite: Suite): void {
    this.suite = suite;
  }

  onEnd(_result: FullResult): void {
    const file = process.env.E2E_FLAKY_FILE;
    if (!file || !this.suite) return;
    // The lane: the provider the suite signed in through (scripts/stack/run-oidc-e2e.ts sets it).
    const lane = process.env.E2E_PROVIDER ?? 'embedded';
    const flaky = this.suite.allTests().filter((t: TestCase) => t.outcome() === 'flaky');
    const lines = flaky.map((t) => {
      const first = t.results.find((r) => r.status !== 'passed');
      const why = (first?.error?.message ?? first?.status ?? '').replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').split('\n')[0]!.slice(0, 160);
      return `${lane}: ${t.location.file.replace(/^.*\/tests\/e2e\//, 'tests/e2e/')}:${t.location.line} ${t.titlePath().filter(Boolean).slice(1).join(' › ')} (first try: ${why})\n`;
    });
    if (lines.length) appendFileSync(file, lines.join(''));
  }

  printsToStdio(): boolean {
    return false;
  }
}
