import { webcrypto } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { createFederation, MemoryKvStore, type Context, type Federation } from '@fedify/fedify';
import { Accept, type Activity, Create, Delete, Endpoints, Follow, Person, Reject, Update } from '@fedify/vocab';

/** A port nothing listens on now: a server's PUBLIC_URL must name it before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Asks `check` until it answers true (deliveries go through queues), at most 20 s. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting until ${what}`);
}

export interface Peer {
  origin: string;
  host: string;
  federation: Federation<void>;
  ctx: Context<void>;
  /** The peer's one person, "pat". */
  actor: URL;
  /** Every activity its inbox took, in order (verified by Fedify: signed by their actor). */
  received: Activity[];
  close(): Promise<void>;
}

/**
 * Another fediverse server with none of our code: a Fedify instance of its own (in-memory store,
 * no queue, its own RSA key) serving one person, "pat", over plain http on loopback, whose inbox
 * keeps what it is sent. `allowPrivateAddress` lets it reach our loopback server (test only).
 */
export async function startPeer(t: { teardown(fn: () => unknown): void }): Promise<Peer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const federation = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true, origin });
  const keys = await webcrypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      if (identifier !== 'pat') return null;
      const [pair] = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: 'pat',
        name: 'Pat',
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: pair?.cryptographicKey ?? null,
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => (identifier === 'pat' ? [keys] : []));
  const received: Activity[] = [];
  const keep = async (_ctx: unknown, activity: Activity) => {
    received.push(activity);
  };
  federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    .on(Accept, keep)
    .on(Reject, keep)
    .on(Create, keep)
    .on(Update, keep)
    .on(Delete, keep)
    .on(Follow, keep);

  const server: Server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else if (value !== undefined) headers.set(name, value);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const response = await federation.fetch(
      new Request(new URL(req.url ?? '/', origin), { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined }),
      { contextData: undefined },
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  t.teardown(close);
  const ctx = federation.createContext(new URL(origin), undefined);
  return { origin, host: `127.0.0.1:${port}`, federation, ctx, actor: ctx.getActorUri('pat'), received, close };
}
