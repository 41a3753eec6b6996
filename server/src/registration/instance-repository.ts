import type Database from 'better-sqlite3';
import { REGISTRATION_MODES, type RegistrationMode } from '../kernel/config.js';
import { badRequest } from '../kernel/errors.js';
import { APP_VERSION } from '../kernel/version.js';
import { createInvitesRepository } from './invites-repository.js';
import { cleanText } from '../kernel/text.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';

/** Limits of the server's own page (docs/registration.md). */
export const INSTANCE_NAME_MAX_LENGTH = 60;
export const INSTANCE_DESCRIPTION_MAX_LENGTH = 500;
export const INSTANCE_RULES_MAX_COUNT = 20;
export const INSTANCE_RULE_MAX_LENGTH = 300;
export const DEFAULT_INSTANCE_NAME = 'Shower Beer';
/** How to reach the operators: an e-mail address or a line such as "@olga on Signal" (issue 48). */
export const INSTANCE_CONTACT_MAX_LENGTH = 200;

const MODE_WORDS: Record<RegistrationMode, string> = { open: 'open', approval: 'approval', invite: 'invite only', closed: 'closed' };

export interface InstanceSettings {
  name: string;
  description: string;
  rules: string[];
  registrationMode: RegistrationMode;
  membersCanInvite: boolean;
  /** How to reach the operators ('' when none is set): "Forgot password?" and the landing page show it. */
  contact: string;
  /** The app's version (server/src/kernel/version.ts), not stored: shown with the settings, never changed by them. */
  version: string;
}

export interface InstanceChange {
  name?: string;
  description?: string;
  rules?: string[];
  registrationMode?: string;
  membersCanInvite?: boolean;
  contact?: string;
}

interface Row {
  name: string;
  description: string;
  rules: string;
  registrationMode: RegistrationMode;
  membersCanInvite: number;
  contact: string;
}

const isMode = (value: string): value is RegistrationMode => (REGISTRATION_MODES as readonly string[]).includes(value);

/** One line of text: line breaks and runs of spaces become one space. */
const oneLine = (raw: string) => cleanText(raw).replace(/\s+/g, ' ');

/**
 * The server's own settings (table instance_settings, one row). The row is made on the first
 * start from REGISTRATION_MODE; from then on the operator page changes it, so a restart with
 * another REGISTRATION_MODE does not undo what an operator chose. Read by primary key on every
 * first sign-in and GET /api/instance (a few µs), so nothing is cached that could go stale
 * between the server and a CLI.
 */
export function createInstanceRepository(sqlite: Database.Database, initialMode: RegistrationMode) {
  sqlite
    .prepare('INSERT OR IGNORE INTO instance_settings (id, registration_mode, updated_at) VALUES (1, ?, ?)')
    .run(initialMode, Date.now());
  const read = sqlite.prepare<[], Row>(`
    SELECT name, description, rules, registration_mode AS registrationMode, members_can_invite AS membersCanInvite, contact
    FROM instance_settings WHERE id = 1`);
  const write = sqlite.prepare<{ name: string; description: string; rules: string; mode: string; members: number; contact: string; at: number }>(`
    UPDATE instance_settings SET name = @name, description = @description, rules = @rules, registration_mode = @mode,
      members_can_invite = @members, contact = @contact, updated_at = @at WHERE id = 1`);
  const log = createModerationLog(sqlite);
  const listeners = new Set<(settings: InstanceSettings) => void>();
  const invites = createInvitesRepository(sqlite);

  const get = (): InstanceSettings => {
    const row = read.get() ?? { name: DEFAULT_INSTANCE_NAME, description: '', rules: '', registrationMode: initialMode, membersCanInvite: 0, contact: '' };
    return {
      name: row.name,
      description: row.description,
      rules: row.rules === '' ? [] : row.rules.split('\n'),
      registrationMode: row.registrationMode,
      membersCanInvite: row.membersCanInvite === 1,
      contact: row.contact,
      version: APP_VERSION,
    };
  };

  /** Checks every field first: a bad one throws 400 and nothing is written. */
  function validate(change: InstanceChange, current: InstanceSettings): InstanceSettings {
    const next = { ...current };
    if (change.registrationMode !== undefined) {
      if (!isMode(change.registrationMode)) {
        throw badRequest(`registrationMode must be one of ${REGISTRATION_MODES.join(', ')}.`);
      }
      next.registrationMode = change.registrationMode;
    }
    if (change.name !== undefined) {
      const name = oneLine(change.name);
      if (name === '') throw badRequest('The server needs a name.');
      if (Array.from(name).length > INSTANCE_NAME_MAX_LENGTH) throw badRequest(`The name can be at most ${INSTANCE_NAME_MAX_LENGTH} characters.`);
      next.name = name;
    }
    if (change.description !== undefined) {
      const description = cleanText(change.description);
      if (Array.from(description).length > INSTANCE_DESCRIPTION_MAX_LENGTH) {
        throw badRequest(`The description can be at most ${INSTANCE_DESCRIPTION_MAX_LENGTH} characters.`);
      }
      next.description = description;
    }
    if (change.rules !== undefined) {
      const rules = change.rules.map(oneLine).filter((r) => r !== '');
      if (rules.length > INSTANCE_RULES_MAX_COUNT) throw badRequest(`A server can have at most ${INSTANCE_RULES_MAX_COUNT} rules.`);
      const long = rules.findIndex((r) => Array.from(r).length > INSTANCE_RULE_MAX_LENGTH);
      if (long !== -1) throw badRequest(`Rule ${long + 1} is longer than ${INSTANCE_RULE_MAX_LENGTH} characters.`);
      next.rules = rules;
    }
    if (change.membersCanInvite !== undefined) next.membersCanInvite = change.membersCanInvite;
    if (change.contact !== undefined) {
      const contact = oneLine(change.contact);
      if (Array.from(contact).length > INSTANCE_CONTACT_MAX_LENGTH) {
        throw badRequest(`The contact can be at most ${INSTANCE_CONTACT_MAX_LENGTH} characters.`);
      }
      next.contact = contact;
    }
    return next;
  }

  /** The log's lines for what changed between `a` and `b`, in words (the operator page's log). */
  function logChanges(op: Operator, a: InstanceSettings, b: InstanceSettings) {
    const who: string[] = [];
    if (a.registrationMode !== b.registrationMode) who.push(`registration ${MODE_WORDS[b.registrationMode]}`);
    if (a.membersCanInvite !== b.membersCanInvite) who.push(`members can invite ${b.membersCanInvite ? 'on' : 'off'}`);
    if (who.length > 0) log(op, 'change_registration', who.join(', '), null, '');
    const page: string[] = [];
    if (a.name !== b.name) page.push(`name “${b.name}”`);
    if (a.description !== b.description) page.push('description');
    if (a.rules.join('\n') !== b.rules.join('\n')) page.push('rules');
    if (a.contact !== b.contact) page.push(b.contact === '' ? 'contact removed' : 'contact');
    if (page.length > 0) log(op, 'change_server_page', page.join(', '), null, '');
  }

  const update = sqlite.transaction((change: InstanceChange, op: Operator | null): InstanceSettings => {
    const current = get();
    const next = validate(change, current);
    // Every operator act is in the moderation log (issue 48), in the same transaction; a save that changes nothing is not an act.
    if (op) logChanges(op, current, next);
    const at = Date.now();
    // Turning "Members can invite" off withdraws the open links members made (docs/registration.md,
    // "Invite links"): the switch then means what it says at once, and turning it on again gives
    // nothing back. Operators' links stay.
    if (current.membersCanInvite && !next.membersCanInvite) invites.revokeMembers(at);
    write.run({
      name: next.name,
      description: next.description,
      rules: next.rules.join('\n'),
      mode: next.registrationMode,
      members: next.membersCanInvite ? 1 : 0,
      contact: next.contact,
      at,
    });
    return next;
  });

  return {
    get,
    /**
     * Validates and writes in one transaction, with the moderation log's lines for `op`'s change
     * (null: not an operator's act, e.g. a test's set-up); tells the listeners (the web pages,
     * web/plugin.ts) after the commit.
     */
    update(change: InstanceChange, op: Operator | null = null): InstanceSettings {
      const next = update.immediate(change, op);
      for (const l of listeners) l(next);
      return next;
    },
    onChange(listener: (settings: InstanceSettings) => void) {
      listeners.add(listener);
    },
  };
}

export type InstanceRepository = ReturnType<typeof createInstanceRepository>;
