import { client } from '../api/factories.js';
import { buildTestApp, type Teardown, type TestApp } from '../helpers.js';
import { freePort } from './peer.js';

/**
 * Two Shower Beer servers on loopback, each with its own database, keys and queue, that sign and
 * verify every activity for real. Each may reach only the other's host:port on a private address
 * (FEDERATION_ALLOWED_PRIVATE_HOSTS). People are looked up by actor URL here: WebFinger handles go
 * over https, which the stack lane runs behind a TLS proxy (scripts/stack/federation-tls.ts).
 * `env.FEDERATION_ALLOWED_PRIVATE_HOSTS` adds hosts (a test's own peers) to those two: the fetch
 * guard (safe-fetch.ts) lets a server reach no other loopback host:port.
 */
export async function twoServers(t: Teardown, env: Record<string, string> = {}) {
  const [portA, portB] = [await freePort(), await freePort()];
  const hosts = [`127.0.0.1:${portA}`, `127.0.0.1:${portB}`, ...(env.FEDERATION_ALLOWED_PRIVATE_HOSTS ? [env.FEDERATION_ALLOWED_PRIVATE_HOSTS] : [])].join(',');
  const start = async (port: number): Promise<TestApp & { origin: string; host: string }> => {
    const origin = `http://127.0.0.1:${port}`;
    const app = await buildTestApp(t, { FEDERATION: 'on', PUBLIC_URL: origin, ...env, FEDERATION_ALLOWED_PRIVATE_HOSTS: hosts });
    await app.app.listen({ port, host: '127.0.0.1' });
    return { ...app, origin, host: `127.0.0.1:${port}` };
  };
  return { a: await start(portA), b: await start(portB) };
}

/**
 * Someone on `here` finds a person of `there` by their actor's address and asks to follow them
 * (set-up through the API, as the app does it); the caller waits for the acceptance it needs.
 */
export async function followAcross(
  here: TestApp & { host: string },
  token: string,
  there: TestApp & { origin: string; host: string },
  whom: { id: number; username: string },
): Promise<void> {
  const as = client(here.app, token);
  const found = await as('GET', `/api/search-profiles?username=${encodeURIComponent(`${there.origin}/users/${whom.id}`)}`);
  if (found.status !== 200) throw new Error(`search for ${whom.username} answered ${found.status}`);
  const follow = await as('POST', `/api/account/${encodeURIComponent(`${whom.username}@${there.host}`)}/follow`);
  if (follow.status !== 200) throw new Error(`follow of ${whom.username} answered ${follow.status}`);
}
