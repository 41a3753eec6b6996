import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Something a test wants the stand-in provider to answer for a path. */
export type Route = (req: IncomingMessage, res: ServerResponse) => void;

export interface FakeProvider {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Requests seen, by path. */
  hits: Map<string, number>;
  route(path: string, handler: Route | object): void;
  close(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** An in-process HTTP server standing in for an OpenID provider (discovery, JWKS, userinfo). */
export async function fakeProvider(t: Teardown): Promise<FakeProvider> {
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  t.teardown(close);
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    route(path, handler) {
      routes.set(
        path,
        typeof handler === 'function'
          ? (handler as Route)
          : (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(handler)),
      );
    },
    close,
  };
}

/** Keycloak's discovery document as it answers on `host` for the realm whose public issuer is `issuer`. */
export function keycloakDiscovery(issuer: string, backchannel = issuer) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
    token_endpoint: `${backchannel}/protocol/openid-connect/token`,
    userinfo_endpoint: `${backchannel}/protocol/openid-connect/userinfo`,
    end_session_endpoint: `${issuer}/protocol/openid-connect/logout`,
    jwks_uri: `${backchannel}/protocol/openid-connect/certs`,
    response_types_supported: ['code', 'none', 'id_token', 'token', 'id_token token', 'code id_token', 'code token', 'code id_token token'],
  };
}
