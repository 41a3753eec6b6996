// Keycloak's admin REST API, for the tests that run against a real Keycloak (the Keycloak lane,
// scripts/test-stack.ts). It does what a self-hoster does in Keycloak's admin console: give a
// person the realm role `shower-beer-admin`, look at brute-force detection, add a client.
// The lane hands over Keycloak's URL and the bootstrap administrator of the master realm, the
// account compose.yaml's KC_BOOTSTRAP_ADMIN_* make.
import type { Credentials } from './pages/sign-in-page';

export const REALM = 'shower-beer';
export const OPERATOR_ROLE = 'shower-beer-admin';

export function keycloakUrl(): string | null {
  return process.env.E2E_KEYCLOAK_URL?.replace(/\/+$/, '') ?? null;
}

function base(): string {
  const url = keycloakUrl();
  if (!url) throw new Error('E2E_KEYCLOAK_URL must be set to use Keycloak’s admin API (the Keycloak lane sets it)');
  return url;
}

/** A token of the master realm's bootstrap administrator (admin-cli, password grant). */
export async function passwordGrant(realm: string, clientId: string, username: string, password: string): Promise<Response> {
  return fetch(`${base()}/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: clientId, username, password, scope: 'openid' }),
  });
}

async function adminToken(): Promise<string> {
  const res = await passwordGrant('master', 'admin-cli', process.env.E2E_KEYCLOAK_ADMIN_USER ?? 'admin', process.env.E2E_KEYCLOAK_ADMIN_PASSWORD ?? '');
  if (!res.ok) throw new Error(`Keycloak admin token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** One admin REST call under /admin/realms ('' for the list of realms); a JSON answer is parsed, anything else returned as text. */
export async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base()}/admin/realms${path ? `/${path.replace(/^\//, '')}` : ''}`, {
    method,
    headers: { authorization: `Bearer ${await adminToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = (res.headers.get('content-type') ?? '').includes('json') && text ? (JSON.parse(text) as T) : (text as T);
  return { status: res.status, body: parsed };
}

export async function userId(username: string): Promise<string | null> {
  const res = await admin<{ id: string }[]>('GET', `${REALM}/users?username=${encodeURIComponent(username)}&exact=true`);
  if (res.status !== 200) throw new Error(`Keycloak user lookup: ${res.status}`);
  return res.body[0]?.id ?? null;
}

/**
 * The operator of the suite: a realm user with the role `shower-beer-admin`, granted through the
 * admin API as docs/self-hosting.md tells a self-hoster to. Made once; both workers may ask at
 * the same moment, so a 409 (made by the other one) counts as made.
 */
export async function ensureOperator(user: Credentials): Promise<void> {
  let id = await userId(user.username);
  if (!id) {
    const created = await admin('POST', `${REALM}/users`, {
      username: user.username,
      email: user.email,
      firstName: 'Shower',
      lastName: 'Operator',
      enabled: true,
      emailVerified: true,
      credentials: [{ type: 'password', value: user.password, temporary: false }],
    });
    if (created.status !== 201 && created.status !== 409) throw new Error(`Keycloak user creation: ${created.status} ${JSON.stringify(created.body)}`);
    id = await userId(user.username);
    if (!id) throw new Error(`Keycloak made no user ${user.username}`);
  }
  await grantRealmRole(id, OPERATOR_ROLE);
}

export async function grantRealmRole(id: string, roleName: string): Promise<void> {
  const role = await admin<{ id: string; name: string }>('GET', `${REALM}/roles/${encodeURIComponent(roleName)}`);
  if (role.status !== 200) throw new Error(`Keycloak role ${roleName}: ${role.status}`);
  const granted = await admin('POST', `${REALM}/users/${id}/role-mappings/realm`, [{ id: role.body.id, name: role.body.name }]);
  if (granted.status !== 204) throw new Error(`Keycloak role grant: ${granted.status} ${JSON.stringify(granted.body)}`);
}
