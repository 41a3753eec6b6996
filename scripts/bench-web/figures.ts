// What `npm run bench:web` takes out of each Lighthouse result, the medians over runs,
// the targets of issue 20 and the tables it prints and writes.
import type { Result } from 'lighthouse';

export interface Figures {
  /** Category scores, 0–100. */
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  /** Lighthouse's simulated metrics (mobile: slow 4G, 4× CPU), ms; CLS unitless. */
  lcp: number;
  tbt: number;
  cls: number;
  fcp: number;
  speedIndex: number;
  /** JavaScript transferred (what went over the wire), KB. */
  jsKb: number;
  /** The same scripts decoded, KB (≈ jsKb when they are sent uncompressed). */
  jsDecodedKb: number;
  /** Lighthouse's measure of this machine's CPU at that moment (higher is faster). */
  benchmarkIndex: number;
}

export interface Finding {
  category: string;
  id: string;
  title: string;
  detail: string;
  /** The first element or line it points at, and how many there are. */
  example?: string;
  items?: number;
  /** Estimated savings, ms (performance opportunities only). */
  savingsMs?: number;
}

export interface RunFindings {
  /** Accessibility, best-practices and SEO audits that lower the score (score < 1, weight > 0). */
  failing: Finding[];
  /** Performance audits with estimated savings, largest first. */
  opportunities: Finding[];
  lcpElement?: string;
  lcpParts?: string;
}

const score = (lhr: Result, id: string) => Math.round((lhr.categories[id]?.score ?? NaN) * 100);
const numeric = (lhr: Result, id: string) => lhr.audits[id]?.numericValue ?? NaN;

interface Row {
  url?: string;
  resourceType?: string;
  transferSize?: number;
  resourceSize?: number;
}

export function figuresOf(lhr: Result): Figures {
  const requests = ((lhr.audits['network-requests']?.details as { items?: Row[] } | undefined)?.items ?? []).filter((r) => r.resourceType === 'Script');
  const kb = (n: number) => n / 1024;
  return {
    performance: score(lhr, 'performance'),
    accessibility: score(lhr, 'accessibility'),
    bestPractices: score(lhr, 'best-practices'),
    seo: score(lhr, 'seo'),
    lcp: numeric(lhr, 'largest-contentful-paint'),
    tbt: numeric(lhr, 'total-blocking-time'),
    cls: numeric(lhr, 'cumulative-layout-shift'),
    fcp: numeric(lhr, 'first-contentful-paint'),
    speedIndex: numeric(lhr, 'speed-index'),
    jsKb: kb(requests.reduce((s, r) => s + (r.transferSize ?? 0), 0)),
    jsDecodedKb: kb(requests.reduce((s, r) => s + (r.resourceSize ?? 0), 0)),
    benchmarkIndex: lhr.environment.benchmarkIndex,
  };
}

interface DetailItem {
  node?: { snippet?: string; nodeLabel?: string; explanation?: string };
  source?: { snippet?: string; url?: string } | string;
  description?: string;
  url?: string;
}

const clip = (text: string, n = 120) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/** The element or line an audit item points at, short. */
function describeItem(item: DetailItem): string {
  if (item.node?.snippet) {
    // color-contrast: the ratio and the two colours say what to change.
    const contrast = /contrast of ([\d.]+) \(foreground color: (#\w+), background color: (#\w+)/.exec(item.node.explanation ?? '');
    const label = item.node.nodeLabel && !item.node.nodeLabel.includes(' > ') ? ` “${clip(item.node.nodeLabel, 40)}”` : '';
    return `${clip(item.node.snippet)}${label}${contrast ? `: ${contrast[1]}:1, ${contrast[2]} on ${contrast[3]}` : ''}`;
  }
  if (typeof item.source === 'string') return clip(item.source);
  if (item.source?.snippet) return clip(item.source.snippet);
  return clip(item.description ?? item.url ?? '');
}

const savingsOf = (m: Record<string, number | undefined> | undefined) => Math.max(m?.LCP ?? 0, m?.FCP ?? 0) + (m?.TBT ?? 0) + (m?.CLS ?? 0) * 1000;

export function findingsOf(lhr: Result): RunFindings {
  const failing: Finding[] = [];
  for (const category of ['accessibility', 'best-practices', 'seo']) {
    for (const ref of lhr.categories[category]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (!audit || ref.weight === 0 || audit.score === null || audit.score >= 1) continue;
      const items = (audit.details as { items?: DetailItem[] } | undefined)?.items ?? [];
      const example = items.map(describeItem).find((d) => d !== '');
      failing.push({ category, id: ref.id, title: audit.title, detail: audit.displayValue ?? '', example, items: items.length });
    }
  }
  const opportunities: Finding[] = [];
  for (const ref of lhr.categories.performance?.auditRefs ?? []) {
    const audit = lhr.audits[ref.id];
    if (!audit || ref.group === 'metrics' || audit.score === null || audit.score >= 0.9) continue;
    const savingsMs = savingsOf(audit.metricSavings);
    if (savingsMs <= 0 && ref.weight === 0) continue;
    opportunities.push({ category: 'performance', id: ref.id, title: audit.title, detail: audit.displayValue ?? '', savingsMs });
  }
  opportunities.sort((a, b) => (b.savingsMs ?? 0) - (a.savingsMs ?? 0));

  // The LCP element and where its time went (Lighthouse 13's lcp-breakdown insight).
  let lcpElement: string | undefined;
  let lcpParts: string | undefined;
  const breakdown = lhr.audits['lcp-breakdown-insight']?.details as { items?: { type?: string; snippet?: string; items?: { label?: string; duration?: number }[] }[] } | undefined;
  for (const item of breakdown?.items ?? []) {
    if (item.type === 'node' && item.snippet) lcpElement = clip(item.snippet, 160);
    if (item.type === 'table' && item.items) lcpParts = item.items.map((p) => `${p.label} ${Math.round(p.duration ?? 0)} ms`).join(', ');
  }
  return { failing, opportunities, lcpElement, lcpParts };
}

export function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function medianFigures(runs: Figures[]): Figures {
  const keys = Object.keys(runs[0]!) as (keyof Figures)[];
  return Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))])) as unknown as Figures;
}

/** The run Lighthouse would call the median one: the performance score nearest the median, then LCP. */
export function medianRunIndex(runs: Figures[]): number {
  const perf = median(runs.map((r) => r.performance));
  const lcp = median(runs.map((r) => r.lcp));
  let best = 0;
  runs.forEach((r, i) => {
    const d = (x: Figures) => Math.abs(x.performance - perf) * 1e6 + Math.abs(x.lcp - lcp);
    if (d(r) < d(runs[best]!)) best = i;
  });
  return best;
}

// ---------------------------------------------------------------- targets

export interface TargetCheck {
  label: string;
  pass: (f: Figures) => boolean;
}

/** Issue 20's budget, on the medians of every screen. */
export const TARGETS: TargetCheck[] = [
  { label: 'Perf ≥ 98', pass: (f) => f.performance >= 98 },
  { label: 'LCP ≤ 1.8 s', pass: (f) => f.lcp <= 1800 },
  { label: 'TBT ≤ 50 ms', pass: (f) => f.tbt <= 50 },
  { label: 'CLS ≤ 0.01', pass: (f) => f.cls <= 0.01 },
  { label: 'A11y 100', pass: (f) => f.accessibility === 100 },
  { label: 'BP 100', pass: (f) => f.bestPractices === 100 },
  { label: 'SEO 100', pass: (f) => f.seo === 100 },
];

export interface ScreenResult {
  id: string;
  name: string;
  median: Figures;
  runs: Figures[];
  findings: RunFindings;
  /** Audits failing in how many runs (a11y/BP/SEO), by id. */
  failingCounts: Map<string, { finding: Finding; runs: number }>;
}

const s1 = (ms: number) => (ms / 1000).toFixed(2);
const int = (n: number) => (Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US'));

export function resultsTable(results: ScreenResult[]): string {
  const lines = [
    '| Screen | Perf | LCP s | TBT ms | CLS | FCP s | Speed Index s | A11y | BP | SEO | JS KB (decoded) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of results) {
    const f = r.median;
    lines.push(
      `| ${r.name} | ${int(f.performance)} | ${s1(f.lcp)} | ${int(f.tbt)} | ${f.cls.toFixed(3)} | ${s1(f.fcp)} | ${s1(f.speedIndex)} | ${int(f.accessibility)} | ${int(
        f.bestPractices,
      )} | ${int(f.seo)} | ${int(f.jsKb)} (${int(f.jsDecodedKb)}) |`,
    );
  }
  return lines.join('\n');
}

export function targetsTable(results: ScreenResult[]): string {
  const lines = [`| Screen | ${TARGETS.map((t) => t.label).join(' | ')} | All |`, `|---|${TARGETS.map(() => '---').join('|')}|---|`];
  for (const r of results) {
    const verdicts = TARGETS.map((t) => t.pass(r.median));
    lines.push(`| ${r.name} | ${verdicts.map((v) => (v ? 'PASS' : 'FAIL')).join(' | ')} | **${verdicts.every(Boolean) ? 'PASS' : 'FAIL'}** |`);
  }
  return lines.join('\n');
}

export const allPass = (r: ScreenResult) => TARGETS.every((t) => t.pass(r.median));

/** Markdown inline code (HTML snippets would otherwise be read as HTML). */
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

/** What to fix, per screen: the failing audits and the largest performance opportunities of the median run. */
export function findingsList(results: ScreenResult[], runs: number, topOpportunities = 4): string {
  const lines: string[] = [];
  for (const r of results) {
    const parts: string[] = [];
    const failing = [...r.failingCounts.values()].map(
      ({ finding: f, runs: n }) => `${f.category === 'best-practices' ? 'BP' : f.category === 'seo' ? 'SEO' : 'a11y'} \`${f.id}\`${f.detail ? ` ${f.detail}` : ''}${
        f.example ? ` (${f.items && f.items > 1 ? `${f.items}, e.g. ` : ''}${code(f.example)})` : ''
      }${n < runs ? ` in ${n}/${runs} runs` : ''}`,
    );
    if (failing.length) parts.push(`failing: ${failing.join(', ')}`);
    const opp = r.findings.opportunities.slice(0, topOpportunities).map((o) => `\`${o.id}\`${o.detail ? ` ${o.detail}` : ''}${o.savingsMs ? ` (~${int(o.savingsMs)} ms)` : ''}`);
    if (opp.length) parts.push(`performance: ${opp.join(', ')}`);
    if (r.findings.lcpElement) parts.push(`LCP element ${code(r.findings.lcpElement)}${r.findings.lcpParts ? ` (${r.findings.lcpParts})` : ''}`);
    if (r.median.jsKb > 20 && r.median.jsKb > 0.9 * r.median.jsDecodedKb) parts.push(`scripts are sent uncompressed (${int(r.median.jsKb)} KB on the wire)`);
    lines.push(`- **${r.name}**: ${parts.length ? parts.join('; ') : 'nothing flagged'}`);
  }
  return lines.join('\n');
}
