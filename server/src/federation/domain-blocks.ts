import type Database from 'better-sqlite3';
import { badRequest, notFound } from '../kernel/errors.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';
import { cleanText, clip } from '../kernel/text.js';
import { normalizeDomain } from '../kernel/host-names.js';

export { normalizeDomain };

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

/** A server on the allow list (federation_domain_allows). */
export interface DomainAllow {
  domain: string;
  comment: string;
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

/**
 * The entry of `entries` that covers a host (host or host:port): one for exactly it, else for its
 * host name or any domain above it (an entry for example.com covers media.example.com).
 */
function matching<T>(entries: Map<string, T>, host: string): T | undefined {
  if (entries.size === 0) return undefined;
  const exact = entries.get(host.toLowerCase());
  if (exact) return exact;
  let name = host.toLowerCase().replace(/:[0-9]+$/, '');
  for (;;) {
    const entry = entries.get(name);
    if (entry) return entry;
    const dot = name.indexOf('.');
    if (dot === -1) return undefined;
    name = name.slice(dot + 1);
  }
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
  // Limit: users.limited of every person of another server, as the blocks now say (migration 0038).
  const remotePeople = sqlite.prepare<[], { id: number; host: string; limited: number }>(
    'SELECT id, host, limited FROM users WHERE host IS NOT NULL AND deleted_at IS NULL',
  );
  const setLimited = sqlite.prepare<[number, number]>('UPDATE users SET limited = ? WHERE id = ?');
  // Allow-list mode: the switch (instance_settings.federation_allow_list) and the list.
  const readAllowMode = sqlite.prepare<[], number>('SELECT federation_allow_list FROM instance_settings WHERE id = 1').pluck();
  const writeAllowMode = sqlite.prepare<[number, number]>('UPDATE instance_settings SET federation_allow_list = ?, updated_at = ? WHERE id = 1');
  const allAllows = sqlite.prepare<[], DomainAllow>(
    'SELECT domain, comment, created_at AS createdAt FROM federation_domain_allows ORDER BY domain',
  );
  const upsertAllow = sqlite.prepare<[string, string, number]>(`
    INSERT INTO federation_domain_allows (domain, comment, created_at) VALUES (?, ?, ?)
    ON CONFLICT (domain) DO UPDATE SET comment = excluded.comment`);
  const removeAllow = sqlite.prepare<[string]>('DELETE FROM federation_domain_allows WHERE domain = ?');

  const toBlock = (r: Row): DomainBlock => ({
    ...r,
    rejectMedia: r.rejectMedia === 1,
    rejectReports: r.rejectReports === 1,
    obfuscate: r.obfuscate === 1,
  });
  let blocks = new Map<string, DomainBlock>();
  let allows = new Map<string, DomainAllow>();
  let allowListMode = false;
  const reload = () => {
    blocks = new Map(all.all().map((r) => [r.domain, toBlock(r)]));
    allows = new Map(allAllows.all().map((r) => [r.domain, r]));
    allowListMode = readAllowMode.get() === 1;
  };
  reload();

  /**
   * users.limited made what the blocks say for every person of another server: read in the
   * block's transaction, after its write (the map is read again first), so the flag and the
   * block list commit together. Only rows whose flag changes are written.
   */
  const syncLimited = (): number => {
    reload();
    let changed = 0;
    for (const person of remotePeople.all()) {
      const want = matching(blocks, person.host)?.severity === 'limit' ? 1 : 0;
      if (want !== person.limited) {
        setLimited.run(want, person.id);
        changed++;
      }
    }
    return changed;
  };
  // A limit stored before users.limited existed (migration 0037's blocks) applies from the first start.
  sqlite.transaction(syncLimited).immediate();
  /** Runs a change in one transaction; the lists in memory are read again whether it committed or not. */
  const inTransaction = <A extends unknown[], R>(fn: (...args: A) => R) => {
    const tx = sqlite.transaction(fn);
    return (...args: A): R => {
      try {
        return tx.immediate(...args);
      } finally {
        reload();
      }
    };
  };

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

  const set = inTransaction((input: DomainBlockInput, op: Operator): Omit<DomainBlock, 'createdAt'> => {
    const block = clean(input);
    write(block, op);
    syncLimited();
    return block;
  });
  const lift = inTransaction((raw: string, op: Operator) => {
    const domain = normalizeDomain(raw);
    if (!domain || remove.run(domain).changes === 0) throw notFound(`No block of "${clip(raw, 80)}".`);
    log(op, 'unblock_server', domain, null, '');
    syncLimited();
  });
  const allow = inTransaction((raw: string, rawComment: string | undefined, op: Operator): DomainAllow => {
    const domain = normalizeDomain(raw);
    if (!domain) throw badRequest(`"${clip(raw, 80)}" is not a server's domain, like mastodon.example.`);
    const comment = cleanText(rawComment ?? '');
    if (Array.from(comment).length > BLOCK_COMMENT_MAX_LENGTH) throw badRequest(`A reason can be at most ${BLOCK_COMMENT_MAX_LENGTH} characters.`);
    const at = now();
    upsertAllow.run(domain, comment, at);
    log(op, 'allow_server', domain, null, comment);
    return { domain, comment, createdAt: allows.get(domain)?.createdAt ?? at };
  });
  const disallow = inTransaction((raw: string, op: Operator) => {
    const domain = normalizeDomain(raw);
    if (!domain || removeAllow.run(domain).changes === 0) throw notFound(`"${clip(raw, 80)}" is not on the allow list.`);
    log(op, 'disallow_server', domain, null, '');
  });
  const switchAllowList = inTransaction((enabled: boolean, op: Operator) => {
    writeAllowMode.run(enabled ? 1 : 0, now());
    log(op, 'change_allow_list', enabled ? 'on' : 'off', null, '');
  });
  const importAll = inTransaction((csv: string, op: Operator) => {
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
    syncLimited();
    return { imported, skipped };
  });

  return {
    list: (): DomainBlock[] => [...blocks.values()],
    /**
     * The block that applies to a host (host or host:port): an entry for exactly it, else for its
     * host name or any domain above it (a block of example.com covers media.example.com).
     */
    of: (host: string): DomainBlock | undefined => matching(blocks, host),
    /** True when this host's server is suspended (its people are removed: plugin.ts). */
    suspended(host: string): boolean {
      return this.of(host)?.severity === 'suspend';
    },
    /**
     * True when nothing may come in from, or go out to, this host: it is suspended, or allow-list
     * mode is on and it is not on the list (inbox 403, deliveries dropped, no lookups: plugin.ts).
     */
    refused(host: string): boolean {
      if (allowListMode && matching(allows, host) === undefined) return true;
      return this.suspended(host);
    },
    set: (input: DomainBlockInput, op: Operator): Omit<DomainBlock, 'createdAt'> => set(input, op),
    lift: (domain: string, op: Operator): void => lift(domain, op),
    /** Mastodon's CSV, applied in one transaction: each line added or updated, bad lines skipped and said. */
    import: (csv: string, op: Operator): { imported: number; skipped: Array<{ line: number; reason: string }> } => importAll(csv, op),
    /** Allow-list mode and its list (operator page). */
    allowList: (): { enabled: boolean; allows: DomainAllow[] } => ({ enabled: allowListMode, allows: [...allows.values()] }),
    /** Puts a server on the allow list (or changes its reason). */
    allow: (domain: string, comment: string | undefined, op: Operator): DomainAllow => allow(domain, comment, op),
    /** Takes a server off the allow list: 404 when it is not on it. */
    disallow: (domain: string, op: Operator): void => disallow(domain, op),
    /** Turns allow-list mode on or off. */
    setAllowListMode: (enabled: boolean, op: Operator): void => switchAllowList(enabled, op),
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
