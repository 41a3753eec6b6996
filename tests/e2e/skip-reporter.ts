// A Playwright reporter that ends the run with one line per skipped test and the reason the
// test gave (test.skip(condition, reason)), so a lane's log says why anything did not run.
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SkipReporter implements Reporter {
  private readonly skipped: { title: string; reason: string }[] = [];

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status !== 'skipped') return;
    const reason = [...result.annotations, ...test.annotations].find((a) => a.type === 'skip')?.description ?? 'no reason given';
    const title = test.titlePath().filter(Boolean).slice(1).join(' › ');
    if (!this.skipped.some((s) => s.title === title)) this.skipped.push({ title, reason });
  }

  onEnd(_result: FullResult): void {
    if (this.skipped.length === 0) return;
    const byReason = new Map<string, string[]>();
    for (const { title, reason } of this.skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), title]);
    console.log(`\n${this.skipped.length} skipped, by reason:`);
    for (const [reason, titles] of byReason) {
      console.log(`  ${titles.length} × ${reason}`);
      for (const title of titles) console.log(`      ${title}`);
    }
  }

  printsToStdio(): boolean {
    return false;
  }
}
