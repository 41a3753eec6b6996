// The Keycloak lane's upgrade case (scripts/test-stack.ts): a server set up before today's
// keycloak/shower-beer-realm.json gets that file's settings at its next start, and keeps its people.
//
// 1. Keycloak starts with the realm file as release e57354b shipped it
//    (keycloak-realm-e57354b.json beside this file: `git show e57354b:keycloak/shower-beer-realm.json`,
//    kept here so a shallow clone can run it).
//    It is the Keycloak lane's own Keycloak (one start per run: each took about 120 s on CI's
//    runners), so e57354b's file is imported beside today's under another realm name
//    (UPGRADE_REALM: upgradeRealmImport()), and step 4 applies today's file under that same name.
//    The name is the only change to either file; keycloak-sync works on the realm its file names
//    (server/src/keycloak-sync.ts), and realms share nothing this case looks at (settings, clients,
//    mappers, users, brute-force counts), so what it shows is what a server upgraded in place shows.
//    The Keycloak lane's realm stays as compose imports it: this case never touches it.
// 2. A person registers on Keycloak's Register page, through the app's client and redirect URI,
//    and is given the operator role, as docs/self-hosting.md tells a self-hoster to.
// 3. The realm is moved away from today's file in everything the app depends on, as an older file or
//    an operator's edits in the admin console leave it; and self-registration is turned off, an
//    operator's own choice that the upgrade must keep. (e57354b's file differs from today's only in
//    two brute-force keys, quickLoginCheckMilliSeconds and minimumQuickLoginWaitSeconds, whose
//    values are Keycloak's defaults, so that file alone could not show the sync doing anything.)
// 4. compose.yaml's keycloak-sync service runs as compose runs it (scripts/stack/keycloak.ts).
// 5. Read back through the admin API: every setting today's file names, realm and client, is in
//    force; and behaviourally: the person signs in through the app's redirect URI with the same
//    account, their token carries the operator role (mapper and scope mapping back), the password
//    policy refuses a short password, and brute-force detection locks a name after the file's
//    number of failures.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REALM, runKeycloakSync, type Keycloak } from './keycloak.js';

const here = import.meta.dirname;
const repoRoot = join(here, '..', '..');
const OPERATOR_ROLE = 'shower-beer-admin';
type Rep = Record<string, unknown>;

/** The realm this case sets up with e57354b's file and upgrades with today's, beside the lane's REALM. */
export const UPGRADE_REALM = `${REALM}-e57354b`;

/** A realm file (text) with its realm renamed: nothing else in it names the realm. */
function renamed(text: string, realm: string): string {
  const file = JSON.parse(text) as Rep;
  if (file.realm !== REALM) throw new Error(`expected a file for realm ${REALM}, found ${JSON.stringify(file.realm)}`);
  return `${JSON.stringify({ ...file, realm }, null, 2)}\n`;
}

/** e57354b's realm file under UPGRADE_REALM, for startKeycloak's extraRealms (file name → text). */
export function upgradeRealmImport(): Record<string, string> {
  return { [`${UPGRADE_REALM}-realm.json`]: renamed(readFileSync(join(here, 'keycloak-realm-e57354b.json'), 'utf8'), UPGRADE_REALM) };
}

/** Keycloak's placeholders in a realm file (`${APP_PUBLIC_URL}`), filled as its import fills them. */
const realmFile = (text: string, appUrl: string): Rep => JSON.parse(text.replaceAll('${APP_PUBLIC_URL}', appUrl)) as Rep;

class Browser {
  private cookies = new Map<string, string>();
  async get(url: string): Promise<Response> {
    return this.send(url, { method: 'GET' });
  }
  async post(url: string, form: Record<string, string>): Promise<Response> {
    return this.send(url, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }
  private async send(url: string, init: RequestInit): Promise<Response> {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    return res;
  }
}

/** The `action` of the form with this id on a Keycloak page. */
function formAction(html: string, id: string): string {
  const tag = new RegExp(`<form[^>]*id="${id}"[^>]*>`).exec(html)?.[0];
  const action = tag && /action="([^"]+)"/.exec(tag)?.[1];
  if (!action) throw new Error(`no form #${id} on the page:\n${html.slice(0, 400)}`);
  return action.replaceAll('&amp;', '&');
}

interface Person {
  username: string;
  password: string;
}

/** Runs the case on `kc`, a Keycloak started with upgradeRealmImport() among its extraRealms. */
export async function checkRealmUpgrade(opts: { kc: Keycloak; tree: string; say: (msg: string) => void }): Promise<void> {
  const { kc, say } = opts;
  // Every call below is to the upgraded realm, never to the lane's.
  const issuer = `${kc.baseUrl}/realms/${UPGRADE_REALM}`;
  // Today's file as keycloak-sync's mount holds it, its realm renamed like e57354b's.
  const todayDir = mkdtempSync(join(tmpdir(), 'shower-beer-keycloak-upgrade-'));
  try {
    const todayText = renamed(readFileSync(join(repoRoot, 'keycloak', `${REALM}-realm.json`), 'utf8'), UPGRADE_REALM);
    writeFileSync(join(todayDir, 'shower-beer-realm.json'), todayText);
    say(`realm ${UPGRADE_REALM}: e57354b's realm file, imported by the lane's Keycloak ${kc.version} beside today's`);
    const app = kc.appUrl;
    const redirect = `${app}/app/account`;
    const authParams = () =>
      new URLSearchParams({ client_id: 'shower-beer', response_type: 'token', redirect_uri: redirect, scope: 'openid', nonce: randomBytes(8).toString('hex'), state: randomBytes(8).toString('hex') });

    const adminToken = async () => {
      const res = await fetch(`${kc.baseUrl}/realms/master/protocol/openid-connect/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: kc.admin.username, password: kc.admin.password }),
      });
      if (!res.ok) throw new Error(`admin token: ${res.status}`);
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const admin = async <T = Rep>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
      const res = await fetch(`${kc.baseUrl}/admin/realms/${UPGRADE_REALM}${path}`, {
        method,
        headers: { authorization: `Bearer ${await adminToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text) as T };
    };
    const client = async () => (await admin<Rep[]>('GET', '/clients?clientId=shower-beer')).body[0]!;

    /** Signs in on Keycloak's login page for the app; the access token's claims, or why not. */
    const signIn = async (person: Person): Promise<{ claims: Rep } | { refused: string }> => {
      const browser = new Browser();
      const page = await browser.get(`${issuer}/protocol/openid-connect/auth?${authParams()}`);
      const html = await page.text();
      if (page.status !== 200) return { refused: `the login page answered ${page.status}: ${/Invalid parameter: \w+|[^<>]{0,80}redirect[^<>]{0,80}/i.exec(html)?.[0] ?? ''}` };
      const res = await browser.post(formAction(html, 'kc-form-login'), { username: person.username, password: person.password, credentialId: '' });
      const location = res.headers.get('location') ?? '';
      const token = new URLSearchParams(location.split('#')[1] ?? '').get('access_token');
      if (res.status !== 302 || !location.startsWith(redirect) || !token) {
        const body = await res.text();
        return { refused: `${res.status} ${/Invalid username or password\.|Account is disabled[^<]*|[^<>]*temporarily disabled[^<>]*/.exec(body)?.[0] ?? location}` };
      }
      return { claims: JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Rep };
    };

    // 2. A person registers through the app's client, and is made an operator.
    const person: Person = { username: `upgrader-${randomBytes(3).toString('hex')}`, password: `Upgrade-${randomBytes(6).toString('hex')}` };
    const browser = new Browser();
    const form = await browser.get(`${issuer}/protocol/openid-connect/registrations?${authParams()}`);
    const registered = await browser.post(formAction(await form.text(), 'kc-register-form'), {
      username: person.username,
      email: `${person.username}@example.org`,
      firstName: 'Shower',
      lastName: 'Beer',
      password: person.password,
      'password-confirm': person.password,
    });
    if (registered.status !== 302 || !(registered.headers.get('location') ?? '').startsWith(redirect)) throw new Error(`registration failed: ${registered.status}`);
    const users = (await admin<Rep[]>('GET', `/users?username=${person.username}&exact=true`)).body;
    const personId = String(users[0]?.id);
    const role = (await admin<Rep>('GET', `/roles/${OPERATOR_ROLE}`)).body;
    await admin('POST', `/users/${personId}/role-mappings/realm`, [role]);
    say(`${person.username} registered on Keycloak's Register page and was given ${OPERATOR_ROLE}`);

    // 3. The realm as an older file or console edits left it.
    await admin('PUT', '', { bruteForceProtected: false, failureFactor: 30, passwordPolicy: 'length(4)', accessTokenLifespan: 3600, registrationAllowed: false });
    const old = await client();
    await admin('PUT', `/clients/${String(old.id)}`, {
      ...old,
      redirectUris: ['http://old.example.org/app/account'],
      webOrigins: ['http://old.example.org'],
      attributes: { ...(old.attributes as Rep), 'post.logout.redirect.uris': 'http://old.example.org/' },
    });
    const mappers = (await admin<Rep[]>('GET', `/clients/${String(old.id)}/protocol-mappers/models`)).body;
    const roleMapper = mappers.find((m) => m.name === 'operator role');
    await admin('DELETE', `/clients/${String(old.id)}/protocol-mappers/models/${String(roleMapper?.id)}`);
    await admin('DELETE', `/clients/${String(old.id)}/scope-mappings/realm`, [role]);
    const before = await signIn(person);
    if (!('refused' in before)) throw new Error('the drifted realm still let the app sign in: the case would show nothing');
    say(`realm moved away from today's file (brute force off, length(4), old redirect URIs, no role mapper): the app's sign-in is refused (${before.refused})`);

    // 4. The upgrade: compose's keycloak-sync service.
    const output = await runKeycloakSync(kc, opts.tree, todayDir);
    say(`keycloak-sync:\n    ${output.split('\n').join('\n    ')}`);

    // 5. Read back through the admin API: every setting of today's file.
    const today = realmFile(todayText, app);
    const problems: string[] = [];
    const realm = (await admin<Rep>('GET', '')).body;
    const dependsOn = Object.keys(today).filter((k) => /^(bruteForce|permanentLockout|failureFactor|waitIncrement|maxFailureWait|quickLogin|minimumQuickLogin|passwordPolicy|accessTokenLifespan|ssoSession)/.test(k));
    for (const key of dependsOn) {
      if (realm[key] !== today[key]) problems.push(`realm ${key} is ${JSON.stringify(realm[key])}, today's file says ${JSON.stringify(today[key])}`);
    }
    // Self-registration is the operator's switch (docs/self-hosting.md, "The first user"): turned off, it stays off.
    if (realm.registrationAllowed !== false) problems.push(`the operator's "User registration: off" became ${JSON.stringify(realm.registrationAllowed)}`);
    const wanted = (today.clients as Rep[])[0]!;
    const now = await client();
    const same = (a: unknown, b: unknown) => JSON.stringify([a].flat().sort()) === JSON.stringify([b].flat().sort());
    for (const key of ['redirectUris', 'webOrigins', 'rootUrl', 'baseUrl', 'implicitFlowEnabled', 'standardFlowEnabled', 'publicClient', 'fullScopeAllowed']) {
      if (!same(now[key], wanted[key])) problems.push(`client ${key} is ${JSON.stringify(now[key])}, today's file says ${JSON.stringify(wanted[key])}`);
    }
    for (const [key, value] of Object.entries(wanted.attributes as Rep)) {
      if ((now.attributes as Rep)[key] !== value) problems.push(`client attribute ${key} is ${JSON.stringify((now.attributes as Rep)[key])}, today's file says ${JSON.stringify(value)}`);
    }
    const nowMappers = (await admin<Rep[]>('GET', `/clients/${String(now.id)}/protocol-mappers/models`)).body;
    for (const mapper of wanted.protocolMappers as Rep[]) {
      const have = nowMappers.find((m) => m.name === mapper.name);
      const config = Object.entries(mapper.config as Record<string, string>);
      if (!have || have.protocolMapper !== mapper.protocolMapper || config.some(([k, v]) => (have.config as Record<string, string>)[k] !== v)) {
        problems.push(`mapper "${String(mapper.name)}" is ${JSON.stringify(have ?? null)}`);
      }
    }
    const scopeRoles = (await admin<Rep[]>('GET', `/clients/${String(now.id)}/scope-mappings/realm`)).body.map((r) => r.name);
    if (!scopeRoles.includes(OPERATOR_ROLE)) problems.push(`the client's scope mappings are ${JSON.stringify(scopeRoles)}, without ${OPERATOR_ROLE}`);
    if (problems.length) throw new Error(`after the upgrade, the realm does not hold today's settings:\n  ${problems.join('\n  ')}`);
    say(`read back: the realm's ${dependsOn.length} settings the app depends on (${dependsOn.join(', ')}), the client's URIs, attributes, ${nowMappers.length} mappers and scope mapping are today's file's; self-registration stays off as the operator set it`);

    // ...and in force: the same person signs in through the app, an operator again.
    const after = await signIn(person);
    if ('refused' in after) throw new Error(`${person.username} cannot sign in after the upgrade: ${after.refused}`);
    const realmRoles = ((after.claims.realm_access as { roles?: string[] } | undefined)?.roles ?? []) as string[];
    if (after.claims.sub !== personId) throw new Error(`the token names ${String(after.claims.sub)}, not ${personId}: the account was not kept`);
    if (!realmRoles.includes(OPERATOR_ROLE)) throw new Error(`${person.username}'s token has realm roles ${JSON.stringify(realmRoles)}, without ${OPERATOR_ROLE}`);
    if (![after.claims.aud].flat().includes('shower-beer-api')) throw new Error(`the token's audience is ${JSON.stringify(after.claims.aud)}`);
    say(`${person.username} signs in through the app's redirect URI, same account, token with ${OPERATOR_ROLE} and audience shower-beer-api`);

    const short = await admin('POST', '/users', { username: `short-${randomBytes(3).toString('hex')}`, enabled: true, credentials: [{ type: 'password', value: 'short7!', temporary: false }] });
    if (short.status !== 400) throw new Error(`a 7-character password was taken (${short.status}): the password policy is not in force`);
    say(`the password policy refuses a 7-character password (${short.status} ${JSON.stringify(short.body)})`);

    const target: Person = { username: `locked-${randomBytes(3).toString('hex')}`, password: `Locked-${randomBytes(6).toString('hex')}` };
    const made = await admin('POST', '/users', {
      username: target.username,
      email: `${target.username}@example.org`,
      firstName: 'Locked',
      lastName: 'Out',
      enabled: true,
      credentials: [{ type: 'password', value: target.password, temporary: false }],
    });
    if (made.status !== 201) throw new Error(`could not make ${target.username}: ${made.status} ${JSON.stringify(made.body)}`);
    const failures = Number(today.failureFactor);
    for (let i = 1; i <= failures; i++) {
      // Slower than the quick-login check, which would lock the name at the second failure.
      await new Promise((r) => setTimeout(r, Number(today.quickLoginCheckMilliSeconds ?? 1000) + 100));
      const res = await signIn({ ...target, password: `wrong-${i}` });
      if (!('refused' in res)) throw new Error('a wrong password signed in');
    }
    const locked = await signIn(target);
    if (!('refused' in locked)) throw new Error(`after ${failures} wrong passwords the right one still signs in: brute-force detection is not in force`);
    say(`brute-force detection: after ${failures} wrong passwords the right one is refused (${locked.refused})`);
  } finally {
    rmSync(todayDir, { recursive: true, force: true });
  }
}
