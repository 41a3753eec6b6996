// `node server/dist/keycloak-sync.js keycloak/shower-beer-realm.json`: brings an existing
// Keycloak realm to the settings the realm file states, through Keycloak's admin REST API.
//
// Keycloak imports keycloak/shower-beer-realm.json only while the realm does not exist
// (compose.yaml's `--import-realm`), so a setting changed in the file would never reach a server
// set up before the change. compose.yaml runs this, from the app's image, as the one-shot service
// `keycloak-sync` at every start, after Keycloak is healthy and before the app starts; the file
// stays the one source of truth, read by both.
//
// What it applies (the file's values win over the realm's):
//   - the realm settings the app depends on (REALM_SETTINGS: brute-force detection, password
//     policy, token and session lifespans);
//   - the file's realm roles (made when missing, their description set);
//   - each of the file's clients, made when missing, else: every setting the file names, its
//     redirect URIs and web origins (replaced), the attributes it names (the post-logout redirect
//     URIs among them), its protocol mappers by name (made or replaced), and its client scopes
//     and the scope mappings (added when missing).
// What it leaves alone: users, their passwords, role grants and sessions; the realm settings
// docs/self-hosting.md leaves to the operator (OPERATOR_SETTINGS: self-registration, "Forgot
// password", …), which the file sets for a new server only; settings, clients, mappers and scopes
// the file does not name. A realm key in neither list stops it with an error, so the file cannot
// hold a setting that silently never arrives. After applying, it reads
// everything back and fails if Keycloak did not take a value.
//
// Environment: KEYCLOAK_URL (how this process reaches Keycloak, e.g. http://keycloak:8080),
// KEYCLOAK_ADMIN_USERNAME and KEYCLOAK_ADMIN_PASSWORD (an administrator of the master realm; compose
// passes its KC_BOOTSTRAP_ADMIN_*), KEYCLOAK_SYNC_TIMEOUT_SECONDS (how long to wait for Keycloak,
// default 120), and the variables the file's `${NAME}` / `${NAME:default}` placeholders name
// (APP_PUBLIC_URL), filled as Keycloak's import fills them.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Rep = { [key: string]: Json };

/** Realm settings the app and docs/self-hosting.md count on: applied at every start. */
export const REALM_SETTINGS = new Set([
  'bruteForceProtected',
  'permanentLockout',
  'failureFactor',
  'waitIncrementSeconds',
  'maxFailureWaitSeconds',
  'maxDeltaTimeSeconds',
  'quickLoginCheckMilliSeconds',
  'minimumQuickLoginWaitSeconds',
  'passwordPolicy',
  'accessTokenLifespan',
  'accessTokenLifespanForImplicitFlow',
  'ssoSessionIdleTimeout',
  'ssoSessionMaxLifespan',
]);
/** Realm settings the operator may change in the admin console (docs/self-hosting.md): the file's value is a new server's start only. */
export const OPERATOR_SETTINGS = new Set([
  'realm',
  'displayName',
  'enabled',
  'sslRequired',
  'registrationAllowed',
  'registrationEmailAsUsername',
  'loginWithEmailAllowed',
  'duplicateEmailsAllowed',
  'editUsernameAllowed',
  'resetPasswordAllowed',
  'verifyEmail',
  'rememberMe',
]);

/** Keys of a client that are applied by their own endpoints, or additively, not by PUT /clients/{id}. */
const CLIENT_SUBRESOURCES = ['protocolMappers', 'defaultClientScopes', 'optionalClientScopes'] as const;
/** Lists a realm may hold more of than the file names (an operator's additions stay). */
const ADDITIVE = new Set(['defaultClientScopes', 'optionalClientScopes']);

export class SyncError extends Error {}

/** Keycloak's import placeholders: `${NAME}` and `${NAME:default}`, from `env`. */
export function fillPlaceholders(value: Json, env: Record<string, string | undefined>): Json {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      throw new SyncError(`the realm file uses \${${name}}, which is not set`);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, env));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, env)]));
  return value;
}

const isPlain = (v: Json | undefined) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const isObject = (v: Json | undefined): v is Rep => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Where `actual` differs from what `expected` states, as readable lines. Objects: every key of
 * `expected`; lists of plain values: the same members in any order (or at least them, for the
 * ADDITIVE keys); lists of objects with a `name`: matched by name.
 */
export function differences(expected: Json, actual: Json | undefined, path: string): string[] {
  if (isPlain(expected)) {
    // Keycloak answers some numbers as strings inside attributes and mapper configs.
    return actual === expected || (actual !== undefined && actual !== null && String(actual) === String(expected))
      ? []
      : [`${path}: ${JSON.stringify(actual)} (the file says ${JSON.stringify(expected)})`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: ${JSON.stringify(actual)} (the file says ${JSON.stringify(expected)})`];
    if (expected.every(isObject) && expected.every((e) => typeof e.name === 'string')) {
      return expected.flatMap((e) => {
        const match = actual.find((a) => isObject(a) && a.name === e.name);
        return match ? differences(e, match, `${path}[${String(e.name)}]`) : [`${path}: no "${String(e.name)}"`];
      });
    }
    const key = path.split('.').pop() ?? '';
    const have = actual.map((a) => JSON.stringify(a));
    const want = expected.map((e) => JSON.stringify(e));
    const missing = want.filter((w) => !have.includes(w));
    const extra = ADDITIVE.has(key) ? [] : have.filter((h) => !want.includes(h));
    return missing.length || extra.length ? [`${path}: [${have.join(', ')}] (the file says [${want.join(', ')}])`] : [];
  }
  if (!isObject(actual)) return [`${path}: ${JSON.stringify(actual)} (the file says an object)`];
  return Object.entries(expected as Rep).flatMap(([k, v]) => differences(v, actual[k], `${path}.${k}`));
}

interface Options {
  url: string;
  username: string;
  password: string;
  timeoutMs: number;
  say: (msg: string) => void;
}

class Admin {
  private token = '';
  private tokenAt = 0;
  private readonly opts: Options;

  constructor(opts: Options) {
    this.opts = opts;
  }

  async login(): Promise<void> {
    const res = await fetch(`${this.opts.url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: this.opts.username, password: this.opts.password }),
      signal: AbortSignal.timeout(15_000),
    });
    if (res.status === 401 || res.status === 400) {
      throw new SyncError(
        `Keycloak refused the administrator "${this.opts.username}" of the master realm (${res.status}): KEYCLOAK_ADMIN_USERNAME and KEYCLOAK_ADMIN_PASSWORD (compose: KC_BOOTSTRAP_ADMIN_* in .env) must name an administrator that exists`,
      );
    }
    if (!res.ok) throw new Error(`Keycloak's token endpoint answered ${res.status}`);
    this.token = ((await res.json()) as { access_token: string }).access_token;
    this.tokenAt = Date.now();
  }

  /** Waits until Keycloak answers, then signs in. */
  async connect(): Promise<void> {
    const deadline = Date.now() + this.opts.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.login();
        return;
      } catch (err) {
        if (err instanceof SyncError || Date.now() > deadline) throw err;
        if (attempt === 1) this.opts.say(`waiting for Keycloak at ${this.opts.url} (${(err as Error).message})`);
        await new Promise((r) => setTimeout(r, 2_000));
      }
    }
  }

  /** One call under /admin/realms; 404 comes back as null, any other failure throws. */
  async call<T = Json>(method: string, path: string, body?: Json): Promise<T | null> {
    // Admin tokens of admin-cli live 60 s; a sync takes a second or two, but a slow machine may not.
    if (Date.now() - this.tokenAt > 30_000) await this.login();
    const res = await fetch(`${this.opts.url}/admin/realms${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    if (res.status === 404 && method === 'GET') return null;
    const text = await res.text();
    if (!res.ok) throw new SyncError(`${method} /admin/realms${path}: ${res.status} ${text.slice(0, 500)}`);
    return text && (res.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as T) : null;
  }
}

const enc = encodeURIComponent;

export interface SyncResult {
  realm: string;
  created: boolean;
  /** What was different before, in the form `differences` gives. */
  changed: string[];
}

/** Applies `file` (placeholders filled) to the realm it names. */
export async function syncRealm(file: Rep, opts: Options): Promise<SyncResult> {
  const name = file.realm;
  if (typeof name !== 'string' || !name) throw new SyncError('the realm file names no realm');
  const { roles, scopeMappings, clients, ...rest } = file;
  const unknown = Object.keys(rest).filter((k) => !REALM_SETTINGS.has(k) && !OPERATOR_SETTINGS.has(k));
  const realmSettings = Object.fromEntries(Object.entries(rest).filter(([k]) => REALM_SETTINGS.has(k)));
  if (roles !== undefined && !(isObject(roles) && Object.keys(roles).every((k) => k === 'realm'))) unknown.push('roles (other than realm roles)');
  if (unknown.length) throw new SyncError(`the realm file holds ${unknown.join(', ')}, which this sync does not know: add it to REALM_SETTINGS or OPERATOR_SETTINGS in server/src/keycloak-sync.ts`);
  const realmRoles = (isObject(roles) && Array.isArray(roles.realm) ? roles.realm : []) as Rep[];
  const fileClients = (Array.isArray(clients) ? clients : []) as Rep[];
  const fileScopeMappings = (Array.isArray(scopeMappings) ? scopeMappings : []) as Rep[];

  const admin = new Admin(opts);
  await admin.connect();
  const r = `/${enc(name)}`;

  const existing = await admin.call<Rep>('GET', r);
  if (!existing) {
    // Keycloak's own import did not run (started without --import-realm): make it from the file.
    await admin.call('POST', '', file);
    opts.say(`realm "${name}" did not exist: made from the file`);
    return { realm: name, created: true, changed: [] };
  }

  const before = await readBack(admin, name, realmRoles, fileClients);
  const changed = compare(before, realmSettings, realmRoles, fileClients, fileScopeMappings);

  // The realm's own settings: PUT takes a partial representation and sets only what it holds.
  await admin.call('PUT', r, realmSettings);

  for (const role of realmRoles) {
    const current = await admin.call<Rep>('GET', `${r}/roles/${enc(String(role.name))}`);
    if (current) await admin.call('PUT', `${r}/roles/${enc(String(role.name))}`, { ...current, ...role });
    else await admin.call('POST', `${r}/roles`, role);
  }

  const scopes = (await admin.call<Rep[]>('GET', `${r}/client-scopes`)) ?? [];
  for (const client of fileClients) {
    const clientId = String(client.clientId);
    let current = (await admin.call<Rep[]>('GET', `${r}/clients?clientId=${enc(clientId)}`))?.[0];
    if (!current) {
      await admin.call('POST', `${r}/clients`, client);
      current = (await admin.call<Rep[]>('GET', `${r}/clients?clientId=${enc(clientId)}`))?.[0];
      if (!current) throw new SyncError(`client ${clientId} was not made`);
    }
    const id = enc(String(current.id));
    const settings = Object.fromEntries(Object.entries(client).filter(([k]) => !(CLIENT_SUBRESOURCES as readonly string[]).includes(k)));
    const attributes = { ...(isObject(current.attributes) ? current.attributes : {}), ...(isObject(client.attributes) ? client.attributes : {}) };
    const body: Rep = { ...current, ...settings, attributes };
    for (const k of CLIENT_SUBRESOURCES) delete body[k];
    await admin.call('PUT', `${r}/clients/${id}`, body);

    const mappers = (await admin.call<Rep[]>('GET', `${r}/clients/${id}/protocol-mappers/models`)) ?? [];
    for (const mapper of (Array.isArray(client.protocolMappers) ? client.protocolMappers : []) as Rep[]) {
      const have = mappers.find((m) => m.name === mapper.name);
      if (have) await admin.call('PUT', `${r}/clients/${id}/protocol-mappers/models/${enc(String(have.id))}`, { ...mapper, id: have.id! });
      else await admin.call('POST', `${r}/clients/${id}/protocol-mappers/models`, mapper);
    }

    for (const kind of ['default', 'optional'] as const) {
      const wanted = client[`${kind}ClientScopes`];
      if (!Array.isArray(wanted)) continue;
      const have = ((await admin.call<Rep[]>('GET', `${r}/clients/${id}/${kind}-client-scopes`)) ?? []).map((s) => s.name);
      for (const scopeName of wanted) {
        if (have.includes(scopeName)) continue;
        const scope = scopes.find((s) => s.name === scopeName);
        if (!scope) throw new SyncError(`client scope "${String(scopeName)}" does not exist in realm ${name}`);
        await admin.call('PUT', `${r}/clients/${id}/${kind}-client-scopes/${enc(String(scope.id))}`);
      }
    }
  }

  for (const mapping of fileScopeMappings) {
    const client = (await admin.call<Rep[]>('GET', `${r}/clients?clientId=${enc(String(mapping.client))}`))?.[0];
    if (!client) throw new SyncError(`scope mapping for client ${String(mapping.client)}, which does not exist`);
    const reps: Json[] = [];
    for (const role of (Array.isArray(mapping.roles) ? mapping.roles : []) as string[]) {
      const rep = await admin.call<Rep>('GET', `${r}/roles/${enc(role)}`);
      if (!rep) throw new SyncError(`scope mapping names realm role ${role}, which does not exist`);
      reps.push(rep);
    }
    // Adding a role the client already has is a no-op for Keycloak.
    if (reps.length) await admin.call('POST', `${r}/clients/${enc(String(client.id))}/scope-mappings/realm`, reps);
  }

  const after = await readBack(admin, name, realmRoles, fileClients);
  const left = compare(after, realmSettings, realmRoles, fileClients, fileScopeMappings);
  if (left.length) throw new SyncError(`Keycloak did not take every setting:\n  ${left.join('\n  ')}`);
  return { realm: name, created: false, changed };
}

interface State {
  realm: Rep;
  roles: Record<string, Rep | null>;
  clients: Record<string, { rep: Rep; scopeRoles: string[] } | null>;
}

async function readBack(admin: Admin, name: string, roles: Rep[], clients: Rep[]): Promise<State> {
  const r = `/${enc(name)}`;
  const state: State = { realm: (await admin.call<Rep>('GET', r)) ?? {}, roles: {}, clients: {} };
  for (const role of roles) state.roles[String(role.name)] = await admin.call<Rep>('GET', `${r}/roles/${enc(String(role.name))}`);
  for (const client of clients) {
    const rep = (await admin.call<Rep[]>('GET', `${r}/clients?clientId=${enc(String(client.clientId))}`))?.[0];
    if (!rep) {
      state.clients[String(client.clientId)] = null;
      continue;
    }
    const id = enc(String(rep.id));
    // The client scopes as their own endpoints list them (the client's representation may not carry them).
    for (const kind of ['default', 'optional'] as const) {
      rep[`${kind}ClientScopes`] = ((await admin.call<Rep[]>('GET', `${r}/clients/${id}/${kind}-client-scopes`)) ?? []).map((x) => String(x.name));
    }
    const scopeRoles = ((await admin.call<Rep[]>('GET', `${r}/clients/${id}/scope-mappings/realm`)) ?? []).map((x) => String(x.name));
    state.clients[String(client.clientId)] = { rep, scopeRoles };
  }
  return state;
}

/** Every way `state` differs from the file. */
export function compare(state: State, realmSettings: Rep, roles: Rep[], clients: Rep[], scopeMappings: Rep[]): string[] {
  const out = differences(realmSettings, state.realm, 'realm');
  for (const role of roles) {
    const have = state.roles[String(role.name)];
    out.push(...(have ? differences(role, have, `role ${String(role.name)}`) : [`role ${String(role.name)}: missing`]));
  }
  for (const client of clients) {
    const have = state.clients[String(client.clientId)];
    out.push(...(have ? differences(client, have.rep, `client ${String(client.clientId)}`) : [`client ${String(client.clientId)}: missing`]));
  }
  for (const mapping of scopeMappings) {
    const have = state.clients[String(mapping.client)];
    for (const role of (Array.isArray(mapping.roles) ? mapping.roles : []) as string[]) {
      if (!have?.scopeRoles.includes(role)) out.push(`scope mapping ${String(mapping.client)} → ${role}: missing`);
    }
  }
  return out;
}

async function main(argv: string[]): Promise<void> {
  const say = (msg: string) => console.log(`keycloak-sync: ${msg}`);
  const files = argv.filter((a) => !a.startsWith('-'));
  if (files.length === 0) throw new SyncError('usage: node server/dist/keycloak-sync.js REALM_FILE.json …');
  const need = (name: string) => {
    const v = process.env[name];
    if (!v) throw new SyncError(`${name} must be set`);
    return v;
  };
  const opts: Options = {
    url: need('KEYCLOAK_URL').replace(/\/+$/, ''),
    username: need('KEYCLOAK_ADMIN_USERNAME'),
    password: need('KEYCLOAK_ADMIN_PASSWORD'),
    timeoutMs: Number(process.env.KEYCLOAK_SYNC_TIMEOUT_SECONDS || 120) * 1000,
    say,
  };
  for (const path of files) {
    const file = fillPlaceholders(JSON.parse(readFileSync(path, 'utf8')) as Json, process.env);
    if (!isObject(file)) throw new SyncError(`${path} is not a realm representation`);
    const result = await syncRealm(file, opts);
    if (result.created) continue;
    if (result.changed.length === 0) say(`realm "${result.realm}" already had every setting of ${path}`);
    else say(`realm "${result.realm}": applied from ${path}:\n  ${result.changed.join('\n  ')}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(`keycloak-sync: ${err instanceof SyncError ? err.message : ((err as Error).stack ?? String(err))}`);
    process.exit(1);
  });
}
