import type Database from 'better-sqlite3';
import { badRequest, notFound } from '../kernel/errors.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';
import { cleanText, clip } from '../kernel/text.js';

export type Severity = 'suspend' | 'limit' | 'noop';

export interface DomainBlock {
  domain: string;
  severity: Severity;
  rejectMedia: boolean;
  rejectReports: boolean;
  publicComment: string;
  privateComment: string;
  obfuscate: boolean;
  createdAt: number;
}

export type DomainBlockInput = Pick<DomainBlock, 'domain' | 'severity'> & Partial<Omit<DomainBlock, 'domain' | 'severity' | 'createdAt'>>;

interface Row {
  domain: string;
  severity: Severity;
  rejectMedia: number;
  rejectReports: number;
  publicComment: string;
  privateComment: string;
  obfuscate: number;
  createdAt: number;
}

/** The longest reason kept (Mastodon's public comment is free text too). */
export const BLOCK_COMMENT_MAX_LENGTH = 1000;
/** The most lines one import takes: the largest shared block lists have a few thousand. */
const IMPORT_MAX_LINES = 10_000;
/** Mastodon's export header, in its order (docs/self-hosting.md, "Blocking servers"). */
export const CSV_HEADER = '#domain,#severity,#reject_media,#reject_reports,#public_comment,#obfuscate';
const SEVERITIES: readonly Severity[] = ['suspend', 'limit', 'noop'];

/**
 * A domain as blocks name it: a host name in lower case (its IDN in punycode), or a host:port for
 * one server on a port; a pasted address (https://host/path) gives its host. Null when it is
 * not one (an IP range, a wildcard, an empty line).
 */
export function normalizeDomain(raw: string): string | null {
  let text = raw.trim().toLowerCase();
  if (text === '' || text.length > 300) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//.test(text)) text = `https://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  const host = url.host;
  if (!/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::[0-9]{1,5})?$/.test(host)) return null;
  return host;
}

/** One CSV field, quoted when it must be (RFC 4180, as Mastodon writes it). */
const csvField = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** The fields of one CSV line (RFC 4180 quoting; a line break inside quotes is not taken). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

const yes = (value: string | undefined) => /^(?:true|1|yes)$/i.test((value ?? '').trim());

/**
 * The operator's blocks of other servers (issue 50, item 1), table federation_domain_blocks.
 * Read on every inbox POST and every delivery queued (plugin.ts, sqlite-message-queue.ts), so the
 * whole list is kept in memory and read again after each change (one process writes it).
 * Every change is in the moderation log, in its transaction.
 */
export function createDomainBlocks(sqlite: Database.Database, now: () => number = Date.now) {
  const all = sqlite.prepare<[], Row>(`
    SELECT domain, severity, reject_media AS rejectMedia, reject_reports AS rejectReports, public_comment AS publicComment,
      private_comment AS privateComment, obfuscate, created_at AS createdAt
    FROM federation_domain_blocks ORDER BY domain`);
  const upsert = sqlite.prepare<{
    domain: string;
    severity: Severity;
    rejectMedia: number;
    rejectReports: number;
    publicComment: string;
    privateComment: string;
    obfuscate: number;
    at: number;
  }>(`
    INSERT INTO federation_domain_blocks (domain, severity, reject_media, reject_reports, public_comment, private_comment, obfuscate, created_at, updated_at)
    VALUES (@domain, @severity, @rejectMedia, @rejectReports, @publicComment, @privateComment, @obfuscate, @at, @at)
    ON CONFLICT (domain) DO UPDATE SET severity = excluded.severity, reject_media = excluded.reject_media,
      reject_reports = excluded.reject_reports, public_comment = excluded.public_comment,
      private_comment = excluded.private_comment, obfuscate = excluded.obfuscate, updated_at = excluded.updated_at`);
  const remove = sqlite.prepare<[string]>('DELETE FROM federation_domain_blocks WHERE domain = ?');
  const log = createModerationLog(sqlite);

  const toBlock = (r: Row): DomainBlock => ({
    ...r,
    rejectMedia: r.rejectMedia === 1,
    rejectReports: r.rejectReports === 1,
    obfuscate: r.obfuscate === 1,
  });
  let blocks = new Map<string, DomainBlock>();
  const reload = () => {
    blocks = new Map(all.all().map((r) => [r.domain, toBlock(r)]));
  };
  reload();

  /** Checks an entry and cleans its texts: 400 naming what is wrong. */
  function clean(input: DomainBlockInput, where = ''): Omit<DomainBlock, 'createdAt'> {
    const domain = normalizeDomain(input.domain);
    if (!domain) throw badRequest(`${where}"${clip(input.domain, 80)}" is not a server's domain, like mastodon.example.`);
    if (!SEVERITIES.includes(input.severity)) throw badRequest(`${where}severity must be one of ${SEVERITIES.join(', ')}.`);
    const comment = (text: string | undefined) => {
      const cleaned = cleanText(text ?? '');
      if (Array.from(cleaned).length > BLOCK_COMMENT_MAX_LENGTH) throw badRequest(`${where}a reason can be at most ${BLOCK_COMMENT_MAX_LENGTH} characters.`);
      return cleaned;
    };
    return {
      domain,
      severity: input.severity,
      rejectMedia: input.rejectMedia ?? false,
      rejectReports: input.rejectReports ?? false,
      publicComment: comment(input.publicComment),
      privateComment: comment(input.privateComment),
      obfuscate: input.obfuscate ?? false,
    };
  }

  const write = (block: Omit<DomainBlock, 'createdAt'>, op: Operator) => {
    upsert.run({
      ...block,
      rejectMedia: block.rejectMedia ? 1 : 0,
      rejectReports: block.rejectReports ? 1 : 0,
      obfuscate: block.obfuscate ? 1 : 0,
      at: now(),
    });
    log(op, 'block_server', block.domain, null, block.privateComment || block.publicComment, block.severity);
  };

  const set = sqlite.transaction((input: DomainBlockInput, op: Operator): Omit<DomainBlock, 'createdAt'> => {
    const block = clean(input);
    write(block, op);
    return block;
  });
  const lift = sqlite.transaction((raw: string, op: Operator) => {
    const domain = normalizeDomain(raw);
    if (!domain || remove.run(domain).changes === 0) throw notFound(`No block of "${clip(raw, 80)}".`);
    log(op, 'unblock_server', domain, null, '');
  });
  const importAll = sqlite.transaction((csv: string, op: Operator) => {
    const lines = csv.split(/\r?\n/);
    if (lines.length > IMPORT_MAX_LINES) throw badRequest(`A block list can have at most ${IMPORT_MAX_LINES} lines.`);
    const header = csvFields(lines[0] ?? '').map((h) => h.trim().replace(/^#/, '').toLowerCase());
    // Mastodon's header, or none (a plain list of domains, as some shared lists are).
    const named = header.includes('domain');
    const col = (name: string, fallback: number) => (named ? header.indexOf(name) : fallback);
    const at = { domain: col('domain', 0), severity: col('severity', 1), rejectMedia: col('reject_media', 2), rejectReports: col('reject_reports', 3), comment: col('public_comment', 4), obfuscate: col('obfuscate', 5) };
    let imported = 0;
    const skipped: Array<{ line: number; reason: string }> = [];
    for (let i = named ? 1 : 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === '') continue;
      const fields = csvFields(line);
      const field = (index: number) => (index >= 0 ? fields[index]?.trim() : undefined);
      const severityText = (field(at.severity) || 'suspend').toLowerCase();
      const severity = severityText === 'silence' ? 'limit' : severityText;
      try {
        write(
          clean(
            {
              domain: field(at.domain) ?? '',
              severity: severity as Severity,
              rejectMedia: yes(field(at.rejectMedia)),
              rejectReports: yes(field(at.rejectReports)),
              publicComment: field(at.comment) ?? '',
              obfuscate: yes(field(at.obfuscate)),
            },
            `Line ${i + 1}: `,
          ),
          op,
        );
        imported++;
      } catch (err) {
        skipped.push({ line: i + 1, reason: (err as Error).message });
      }
    }
    return { imported, skipped };
  });

  return {
    list: (): DomainBlock[] => [...blocks.values()],
    /**
     * The block that applies to a host (host or host:port): an entry for exactly it, else for its
     * host name or any domain above it (a block of example.com covers media.example.com).
     */
    of(host: string): DomainBlock | undefined {
      if (blocks.size === 0) return undefined;
      const exact = blocks.get(host.toLowerCase());
      if (exact) return exact;
      let name = host.toLowerCase().replace(/:[0-9]+$/, '');
      for (;;) {
        const block = blocks.get(name);
        if (block) return block;
        const dot = name.indexOf('.');
        if (dot === -1) return undefined;
        name = name.slice(dot + 1);
      }
    },
    /** True when nothing may come in from, or go out to, this host. */
    suspended(host: string): boolean {
      return this.of(host)?.severity === 'suspend';
    },
    set(input: DomainBlockInput, op: Operator): Omit<DomainBlock, 'createdAt'> {
      const block = set.immediate(input, op);
      reload();
      return block;
    },
    lift(domain: string, op: Operator): void {
      lift.immediate(domain, op);
      reload();
    },
    /** Mastodon's CSV, applied in one transaction: each line added or updated, bad lines skipped and said. */
    import(csv: string, op: Operator): { imported: number; skipped: Array<{ line: number; reason: string }> } {
      const result = importAll.immediate(csv, op);
      reload();
      return result;
    },
    /** Mastodon's CSV of every block (public comments only: a private one never leaves). */
    export(): string {
      const rows = [...blocks.values()].map((b) =>
        [b.domain, b.severity === 'limit' ? 'silence' : b.severity, String(b.rejectMedia), String(b.rejectReports), csvField(b.publicComment), String(b.obfuscate)].join(','),
      );
      return [CSV_HEADER, ...rows].join('\n') + '\n';
    },
  };
}

export type DomainBlocks = ReturnType<typeof createDomainBlocks>;
