import { webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { signJsonLd, signRequest } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import { freePort } from './peer.js';

/**
 * A scripted ActivityPub server on loopback for the hostile-peer suite (hostile.test.ts, issue 50
 * items 3 and 7): plain node:http with none of Fedify's answering code. It serves its people's
 * actor documents (one RSA key for all of them, at `<actor>#main-key` as Mastodon names keys),
 * a stand-alone key document whose `owner` it may forge, and photos; it keeps what our server
 * POSTs to it; and it sends whatever it is told to, signed as it is told to (draft-cavage HTTP
 * Signatures by default, RFC 9421 on request; Fedify's signRequest only computes the headers).
 */

const RSA = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as const;

async function rsaPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
}

async function pemOf(key: webcrypto.CryptoKey): Promise<string> {
  const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', key)).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${spki.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

/** A request as it went out, headers and bytes, so that it can be sent again unchanged (a replay). */
export interface Prepared {
  url: string;
  headers: Array<[string, string]>;
  body: string;
}

export interface SendOptions {
  /** Which of its people signs (default: its first): the key id is that actor's `#main-key`. */
  as?: string;
  /** Another key id (the forged key document's, or another server's actor). */
  keyId?: string;
  /** The current key (default), the one replaced by rotate(), or one nobody published. */
  key?: 'current' | 'revoked' | 'stranger';
  spec?: 'draft-cavage-http-signatures-12' | 'rfc9421';
  /** The signature's time (Date header; RFC 9421's created): a replay from then. */
  at?: Date;
  /** Sent without any signature. */
  unsigned?: boolean;
  /** The body sent in place of the signed one (its Digest then no longer matches). */
  alteredBody?: string;
}

export interface Answer {
  status: number;
  /** The answer's JSON body, when it was JSON. */
  json: Record<string, unknown> | null;
  text: string;
}

export interface HostilePeer {
  origin: string;
  host: string;
  /** Its people's names (actors served at /users/<name>); add one to serve it. */
  people: Set<string>;
  actorOf(name: string): string;
  keyIdOf(name: string): string;
  /** A stand-alone key document (the current key) whose `owner` is `forgedOwner`. */
  forgedKeyId: string;
  forgedOwner: string;
  /** GETs of its actor documents and key document: how often our server fetched a key. */
  keyFetches: number;
  /** What our server POSTed to its inboxes (not verified), in order. */
  received: Array<{ path: string; json: Record<string, unknown> }>;
  /** Photos it serves, by path. */
  images: Map<string, Buffer>;
  /** Other JSON documents it serves (JSON-LD contexts of its own), by path. */
  documents: Map<string, unknown>;
  /** A new key at the same key ids; the old one becomes `revoked`. */
  rotate(): Promise<void>;
  prepare(inbox: string, activity: Record<string, unknown> | string, options?: SendOptions): Promise<Prepared>;
  send(prepared: Prepared): Promise<Answer>;
  post(inbox: string, activity: Record<string, unknown> | string, options?: SendOptions): Promise<Answer>;
  /** The activity with a Linked Data Signature (RsaSignature2017) by `as` (default its first person), as Mastodon adds one. */
  ldSign(activity: Record<string, unknown>, as?: string): Promise<Record<string, unknown>>;
  /** A signed GET (as `as`, default its first person) or an unsigned one, asking for ActivityPub JSON. */
  get(url: string, options?: { as?: string; unsigned?: boolean; accept?: string }): Promise<Answer>;
}

export async function startHostilePeer(t: { teardown(fn: () => unknown): void }, names: string[] = ['mallory']): Promise<HostilePeer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  let current = await rsaPair();
  let revoked: webcrypto.CryptoKeyPair | null = null;
  const stranger = await rsaPair();
  let pem = await pemOf(current.publicKey);
  const actorOf = (name: string) => `${origin}/users/${name}`;
  const keyIdOf = (name: string) => `${actorOf(name)}#main-key`;

  const peer: HostilePeer = {
    origin,
    host: `127.0.0.1:${port}`,
    people: new Set(names),
    actorOf,
    keyIdOf,
    forgedKeyId: `${origin}/keys/forged`,
    forgedOwner: actorOf(names[0]!),
    keyFetches: 0,
    received: [],
    images: new Map(),
    documents: new Map(),
    async rotate() {
      revoked = current;
      current = await rsaPair();
      pem = await pemOf(current.publicKey);
    },
    async prepare(inbox, activity, options = {}) {
      const body = typeof activity === 'string' ? activity : JSON.stringify(activity);
      let request = new Request(inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json' },
        body,
      });
      if (!options.unsigned) {
        const pair = options.key === 'revoked' ? revoked! : options.key === 'stranger' ? stranger : current;
        request = await signRequest(request, pair.privateKey, new URL(options.keyId ?? keyIdOf(options.as ?? names[0]!)), {
          spec: options.spec ?? 'draft-cavage-http-signatures-12',
          ...(options.at && { currentTime: Temporal.Instant.fromEpochMilliseconds(options.at.getTime()) }),
        });
      }
      return { url: inbox, headers: [...request.headers.entries()], body: options.alteredBody ?? body };
    },
    async send(prepared) {
      const response = await fetch(prepared.url, { method: 'POST', headers: prepared.headers, body: prepared.body });
      return answerOf(response);
    },
    async post(inbox, activity, options) {
      return peer.send(await peer.prepare(inbox, activity, options));
    },
    async ldSign(activity, as) {
      return (await signJsonLd(activity, current.privateKey, new URL(keyIdOf(as ?? names[0]!)), {})) as unknown as Record<string, unknown>;
    },
    async get(url, options = {}) {
      let request = new Request(url, { headers: { accept: options.accept ?? 'application/activity+json' } });
      if (!options.unsigned) request = await signRequest(request, current.privateKey, new URL(keyIdOf(options.as ?? names[0]!)));
      return answerOf(await fetch(request, { redirect: 'manual' }));
    },
  };

  const actorDocument = (name: string) => ({
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: actorOf(name),
    type: 'Person',
    preferredUsername: name,
    name,
    inbox: `${actorOf(name)}/inbox`,
    outbox: `${actorOf(name)}/outbox`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    manuallyApprovesFollowers: false,
    publicKey: { id: keyIdOf(name), owner: actorOf(name), publicKeyPem: pem },
  });

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = new URL(req.url ?? '/', origin).pathname;
    if (req.method === 'POST') {
      try {
        peer.received.push({ path, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      } catch {
        // Kept only when it is JSON.
      }
      res.writeHead(202).end();
      return;
    }
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(body));
    const person = /^\/users\/([^/]+)$/.exec(path)?.[1];
    if (person !== undefined && peer.people.has(person)) {
      peer.keyFetches++;
      return json(actorDocument(person));
    }
    if (path === '/keys/forged') {
      peer.keyFetches++;
      return json({
        '@context': 'https://w3id.org/security/v1',
        id: peer.forgedKeyId,
        type: 'CryptographicKey',
        owner: peer.forgedOwner,
        publicKeyPem: pem,
      });
    }
    if (peer.documents.has(path)) {
      res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify(peer.documents.get(path)));
      return;
    }
    const image = peer.images.get(path);
    if (image) {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': image.length }).end(image);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return peer;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON.
  }
  return { status: response.status, json, text };
}
