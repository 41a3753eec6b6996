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

/** What a fixture peer is (startFixturePeer): another project's server, as its published JSON shows it. */
export interface FixturePeer {
  origin: string;
  host: string;
  /** The fixture actor's id, rewritten to this peer's origin. */
  actor: string;
  /** Every JSON body POSTed to one of its inboxes, in order (not verified: what we sent is not under test here). */
  received: Array<{ path: string; json: Record<string, unknown> }>;
  /** Images it serves, by path (the fixtures' attachment and icon URLs, rewritten to this origin). */
  images: Map<string, Buffer>;
  /** A fixture of this flavour as JSON, every placeholder replaced (see fixtures/README.md); `postId` is our post it names. */
  fixture(name: string, postId?: number): Record<string, unknown>;
  /**
   * Signs `activity` as the fixture actor (HTTP Signatures, draft-cavage, as Mastodon and Pixelfed
   * sign) and POSTs it; the status. `httpSignature: false` POSTs it without one (a relayed
   * activity, whose only proof is a Linked Data Signature in it, or a forgery).
   */
  deliver(inbox: string, activity: Record<string, unknown>, options?: { httpSignature?: boolean }): Promise<number>;
  /** A Linked Data Signature (RsaSignature2017) of `activity` by the fixture actor's key, added as Mastodon adds one to a Delete. */
  ldSign(activity: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** From now on the actor's document answers 410 Gone (as a removed account's does). */
  gone(): void;
}

/**
 * Another project's server as its own JSON shows it (fixtures/mastodon, fixtures/pixelfed): a plain
 * HTTP server on loopback, with none of Fedify's or our code on the answering side, serving the
 * fixture actor (with a key made here in place of the original's) and the images its fixtures
 * name, keeping what is POSTed to its inboxes, and delivering the fixture activities byte for
 * byte as they are written, signed as that actor.
 */
export async function startFixturePeer(
  t: { teardown(fn: () => unknown): void },
  flavour: 'mastodon' | 'pixelfed',
  ours: { origin: string; host: string; aliceId: number },
): Promise<FixturePeer> {
  const { readFileSync } = await import('node:fs');
  const { signRequest, signJsonLd } = await import('@fedify/fedify');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const keys = await webcrypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
  const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey)).toString('base64');
  const pem = `-----BEGIN PUBLIC KEY-----\n${spki.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
  const theirOrigin = flavour === 'mastodon' ? 'https://mastodon.example' : 'https://pixelfed.example';
  const fixture = (name: string, postId = 0): Record<string, unknown> => {
    const text = readFileSync(new URL(`./fixtures/${flavour}/${name}.json`, import.meta.url), 'utf8')
      .replaceAll(theirOrigin, origin)
      .replaceAll('https://ours.example', ours.origin)
      .replaceAll('__OURS_HOST__', ours.host)
      .replaceAll('__ALICE_ID__', String(ours.aliceId))
      .replaceAll('__POST_ID__', String(postId))
      .replaceAll('"__PUBLIC_KEY_PEM__"', JSON.stringify(pem));
    return JSON.parse(text) as Record<string, unknown>;
  };
  const actorJson = fixture('actor');
  const actor = actorJson.id as string;
  const keyId = new URL((actorJson.publicKey as { id: string }).id);
  const received: FixturePeer['received'] = [];
  const images = new Map<string, Buffer>();
  let actorGone = false;

  const server: Server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', origin).pathname;
    if (req.method === 'POST') {
      try {
        received.push({ path, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      } catch {
        // Kept only when it is JSON.
      }
      res.writeHead(202).end();
      return;
    }
    if (path === new URL(actor).pathname) {
      if (actorGone) {
        res.writeHead(410, { 'content-type': 'application/activity+json' }).end(JSON.stringify({ id: actor, type: 'Tombstone' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/activity+json; charset=utf-8' }).end(JSON.stringify(actorJson));
      return;
    }
    const image = images.get(path);
    if (image) {
      res.writeHead(200, { 'content-type': path.endsWith('.png') ? 'image/png' : 'image/jpeg', 'content-length': image.length }).end(image);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));

  return {
    origin,
    host: `127.0.0.1:${port}`,
    actor,
    received,
    images,
    fixture,
    async deliver(inbox, activity, options = {}) {
      const request = new Request(inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json' },
        body: JSON.stringify(activity),
      });
      const signed = options.httpSignature === false ? request : await signRequest(request, keys.privateKey, keyId, { spec: 'draft-cavage-http-signatures-12' });
      const response = await fetch(signed);
      await response.body?.cancel();
      return response.status;
    },
    async ldSign(activity) {
      return (await signJsonLd(activity, keys.privateKey, keyId, {})) as unknown as Record<string, unknown>;
    },
    gone() {
      actorGone = true;
    },
  };
}
