// Other servers for the bench's federation rows (scripts/bench/federation.ts): one process with
// SERVERS loopback listeners, each one server of the seeded set (scripts/bench/seed-lib.ts,
// insertRemote), plus a control listener. Run as its own process so that its work is not the
// measured server's nor the load generator's.
//
// Each server
// - serves its people's actors (GET /users/<name>) with one public key shared by all of them
//   (PUBLIC_KEY_PEM; the bench holds the private key and signs their Likes with it), so the
//   measured server verifies their signatures for real; one server in four offers no shared inbox,
//   as in the seed;
// - takes POSTs to its inboxes (/inbox, /users/<name>/inbox): a POST without an HTTP signature is
//   refused (401), a signed one is counted by its activity's id, with the time it came, and
//   answered 202; nothing is verified beyond that (the receivers' CPU is not what is measured);
// - while stalled (POST /stall on the control listener), holds its answers until POST /release,
//   as a slow server does: the sender's deliveries then wait in its queue.
//
// stdout: one line `ready {"ports":[…],"control":port}` once every listener listens.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const count = Number(process.env.SERVERS ?? 200);
const publicKeyPem = process.env.PUBLIC_KEY_PEM ?? '';
const sharedInbox = (server: number) => server % 4 !== 3;

interface Seen {
  posts: number;
  servers: Set<number>;
  first: number;
  last: number;
}
const seen = new Map<string, Seen>();
let totalPosts = 0;
/** Actor documents served: the measured server's key fetches (its key cache misses). */
let actorFetches = 0;
let refused = 0;
let stalled = false;
const held: ServerResponse[] = [];

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(res: ServerResponse, status: number, value: unknown, type = 'application/json') {
  res.writeHead(status, { 'content-type': type });
  res.end(JSON.stringify(value));
}

function actor(origin: string, server: number, name: string) {
  const id = `${origin}/users/${name}`;
  return {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id,
    type: 'Person',
    preferredUsername: name,
    inbox: `${id}/inbox`,
    ...(sharedInbox(server) && { endpoints: { sharedInbox: `${origin}/inbox` } }),
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
  };
}

async function serve(server: number, origin: () => string, req: IncomingMessage, res: ServerResponse) {
  const path = (req.url ?? '/').split('?')[0]!;
  if (req.method === 'GET') {
    const name = /^\/users\/([A-Za-z0-9_.-]+)$/.exec(path)?.[1];
    if (name) {
      actorFetches++;
      return json(res, 200, actor(origin(), server, name), 'application/activity+json');
    }
    return json(res, 404, { error: 'not_found' });
  }
  if (req.method === 'POST' && /^(?:\/inbox|\/users\/[A-Za-z0-9_.-]+\/inbox)$/.test(path)) {
    const bytes = await body(req);
    if (!req.headers.signature && !req.headers['signature-input']) {
      refused++;
      return json(res, 401, { error: 'unsigned' });
    }
    let id = '?';
    try {
      id = String((JSON.parse(bytes.toString('utf8')) as { id?: unknown }).id ?? '?');
    } catch {
      // counted under '?'
    }
    const at = Date.now();
    totalPosts++;
    const s = seen.get(id) ?? { posts: 0, servers: new Set<number>(), first: at, last: at };
    s.posts++;
    s.servers.add(server);
    s.last = at;
    seen.set(id, s);
    if (stalled) {
      held.push(res);
      return;
    }
    res.writeHead(202).end();
    return;
  }
  json(res, 404, { error: 'not_found' });
}

async function control(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://control');
  if (url.pathname === '/stats') {
    const ids = url.searchParams.getAll('id');
    const of = Object.fromEntries(
      ids.map((id) => {
        const s = seen.get(id);
        return [id, s ? { posts: s.posts, servers: s.servers.size, first: s.first, last: s.last } : { posts: 0, servers: 0, first: 0, last: 0 }];
      }),
    );
    const cpu = process.cpuUsage();
    return json(res, 200, { totalPosts, actorFetches, refused, held: held.length, of, cpuUs: cpu.user + cpu.system });
  }
  if (req.method === 'POST' && url.pathname === '/stall') {
    stalled = true;
    return json(res, 200, { stalled });
  }
  if (req.method === 'POST' && url.pathname === '/release') {
    stalled = false;
    const n = held.length;
    for (const r of held.splice(0)) r.writeHead(202).end();
    return json(res, 200, { released: n });
  }
  json(res, 404, { error: 'not_found' });
}

const listen = (handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) =>
  new Promise<number>((resolve) => {
    const srv = createServer((req, res) => {
      handler(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    srv.keepAliveTimeout = 60_000;
    srv.listen(0, '127.0.0.1', () => resolve((srv.address() as AddressInfo).port));
  });

const ports: number[] = [];
for (let i = 0; i < count; i++) {
  let port = 0;
  ports.push((port = await listen((req, res) => serve(i, () => `http://127.0.0.1:${port}`, req, res))));
}
const controlPort = await listen(control);
console.log(`ready ${JSON.stringify({ ports, control: controlPort })}`);
