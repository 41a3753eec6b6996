import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import Database from 'better-sqlite3';
import t from 'tap';
import app from '../../src/app.js';
import { issueAccessToken } from '../../src/kernel/auth/issue.js';
import { loadConfig } from '../../src/kernel/config.js';
import { USER_CACHE_RECHECK_MS } from '../../src/people/users-repository.js';
import { fastifyOptions } from '../../src/fastify-options.js';
import { bearer, buildTestApp } from '../helpers.js';
import { injectUrl, makeJpeg, presign } from '../media/upload-helpers.js';
import { snapshot } from './reliability-helpers.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

t.test('every kind of bad token is answered 401 in our error shape, on reads and writes alike', async (t) => {
  const { app, config, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const key = app.signingKey!;
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: alice.sub, preferred_username: 'alice', email: 'alice@example.test', azp: config.auth.clientId };
  const signWith = (privateKey: CryptoKey, over: { iss?: string; aud?: string; azp?: string; exp?: number; kid?: string; sub?: string } = {}) =>
    new SignJWT({ ...claims, azp: over.azp ?? claims.azp, sub: over.sub ?? claims.sub })
      .setProtectedHeader({ alg: 'RS256', kid: over.kid ?? key.kid, typ: 'JWT' })
      .setIssuer(over.iss ?? config.auth.issuer)
      .setAudience(over.aud ?? config.auth.audience)
      .setIssuedAt(now - 10)
      .setExpirationTime(over.exp ?? now + 600)
      .sign(privateKey);
  const other = await generateKeyPair('RS256', { extractable: true });
  const hmacKey = new TextEncoder().encode(JSON.stringify(await exportJWK(other.publicKey)));
  const good = alice.token;
  const [h, p] = good.split('.');

  const headers: Record<string, string | undefined> = {
    missing: undefined,
    empty: '',
    'no scheme': good,
    'basic scheme': `Basic ${Buffer.from('alice:secret').toString('base64')}`,
    'bearer without token': 'Bearer ',
    'bearer lowercase twice': `Bearer Bearer ${good}`,
    'not a JWT': 'Bearer not-a-token',
    'two parts': `Bearer ${h}.${p}`,
    'garbage parts': 'Bearer a.b.c',
    'alg none': `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, iss: config.auth.issuer, aud: config.auth.audience, exp: now + 600 })}.`,
    'alg none with signature kept': `Bearer ${b64({ alg: 'none', kid: key.kid })}.${p}.${good.split('.')[2]}`,
    'HS256 (algorithm confusion)': `Bearer ${await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .setIssuer(config.auth.issuer)
      .setAudience(config.auth.audience)
      .setExpirationTime(now + 600)
      .sign(hmacKey)}`,
    'payload changed, signature kept': `Bearer ${h}.${b64({ ...claims, sub: 'someone-else', iss: config.auth.issuer, aud: config.auth.audience, exp: now + 600 })}.${good.split('.')[2]}`,
    'wrong key, same kid': `Bearer ${await signWith(other.privateKey as CryptoKey)}`,
    'wrong issuer': `Bearer ${await signWith(key.privateKey, { iss: 'http://evil.example' })}`,
    'wrong audience and azp': `Bearer ${await signWith(key.privateKey, { aud: 'another-app', azp: 'another-app' })}`,
    expired: `Bearer ${await signWith(key.privateKey, { exp: now - 120 })}`,
    'empty subject': `Bearer ${await signWith(key.privateKey, { sub: '' })}`,
    'huge header': `Bearer ${'a'.repeat(6000)}.${'b'.repeat(6000)}.c`,
  };
  const routes = [
    { method: 'GET' as const, url: '/api/discover-posts' },
    { method: 'POST' as const, url: '/api/like', payload: { postId: 1 } },
    { method: 'POST' as const, url: '/api/presign-upload', payload: { fileName: 'a.jpg', fileType: 'image/jpeg' } },
    { method: 'DELETE' as const, url: '/api/post?postId=1' },
    // Bad input too: the token is checked first (onRequest), so it is a 401, not a 400 that
    // would tell a caller without a token what the route accepts.
    { method: 'PATCH' as const, url: '/api/post?postId=abc', payload: { altText: 1 } },
  ];
  const before = snapshot(app);
  for (const [name, authorization] of Object.entries(headers)) {
    for (const route of routes) {
      const res = await app.inject({ ...route, headers: authorization === undefined ? {} : { authorization } });
      t.equal(res.statusCode, 401, `${name}: ${route.method} ${route.url}`);
      const body = res.json();
      t.equal(body.error, 'unauthorized');
      t.ok(typeof body.message === 'string' && body.message.length > 10, body.message);
      t.equal(res.headers['www-authenticate'], 'Bearer');
    }
  }
  t.same(snapshot(app), before, 'no user was created or changed by a refused token');

  // The good token works, then the account is deleted: the same token is refused.
  t.equal((await app.inject({ method: 'GET', url: '/api/discover-posts', headers: bearer(good) })).statusCode, 200);
  // Marked deleted a few seconds ahead, so every token made below predates the deletion: one
  // issued after it would start a new, empty account (users-repository.ts, upsert), not this one.
  app.database.sqlite.prepare('UPDATE users SET deleted_at = ? WHERE id = ?').run(Date.now() + 5_000, alice.id);
  for (const route of routes) {
    const res = await app.inject({ ...route, headers: bearer(good) });
    t.equal(res.statusCode, 401, `deleted user: ${route.method} ${route.url}`);
  }
  // A token from before the deletion with other claims (new name, new email) does not bring the account back.
  const renamed = await issueAccessToken(key, config.auth, { sub: alice.sub!, username: 'alice2', email: 'new@example.test' });
  const res = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(renamed) });
  t.equal(res.statusCode, 401, 'deleted user with changed claims');
  const row = app.database.sqlite.prepare('SELECT username, deleted_at AS deletedAt FROM users WHERE id = ?').get(alice.id) as {
    username: string;
    deletedAt: number | null;
  };
  t.equal(row.username, 'alice');
  t.not(row.deletedAt, null);
});

t.test('the user behind a token is read again when the account changes, here or in another process', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const db = app.database.sqlite;
  const as = (token: string, url = '/api/user-posts') => app.inject({ method: 'GET', url, headers: bearer(token) });
  t.equal((await as(alice.token)).statusCode, 200);
  t.equal((await as(bob.token)).statusCode, 200);

  // The row is removed on this connection (a hand edit): the same token signs in a new account, never the old id.
  db.prepare('DELETE FROM users WHERE id = ?').run(bob.id);
  const again = await as(bob.token);
  t.equal(again.statusCode, 200, 'a removed user signs in anew');
  const newId = (db.prepare('SELECT id FROM users WHERE sub = ?').get(bob.sub) as { id: number }).id;
  t.not(newId, bob.id, 'as a new row');
  t.equal((await app.inject({ method: 'POST', url: '/api/account/alice/follow', headers: bearer(bob.token) })).statusCode, 200, 'and can write as it');
  t.equal((db.prepare('SELECT following_count AS n FROM users WHERE id = ?').get(newId) as { n: number }).n, 1);

  // Another process (the sqlite3 shell, a script) deletes alice: refused once the server has looked, within USER_CACHE_RECHECK_MS.
  const other = new Database(db.name);
  t.teardown(() => other.close());
  other.prepare('UPDATE users SET deleted_at = ? WHERE id = ?').run(Date.now(), alice.id);
  await new Promise((resolve) => setTimeout(resolve, USER_CACHE_RECHECK_MS + 50));
  t.equal((await as(alice.token)).statusCode, 401, 'deleted by another connection: refused');
  t.equal((await as(alice.token, '/api/discover-posts')).statusCode, 401, 'on every route');
  t.equal((await as(bob.token)).statusCode, 200, 'others are unaffected');
});

t.test('tokens and upload signatures never appear in the server log', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-logs-'));
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'http://localhost:3000', LOG_LEVEL: 'trace', WEB_DIST_DIR: join(dataDir, 'none') });
  const options = fastifyOptions(config);
  const server = Fastify({ ...options, logger: { ...(options.logger as object), stream } });
  await server.register(fp(app), { config });
  await server.ready();
  t.teardown(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const token = await issueAccessToken(server.signingKey!, config.auth, { sub: randomUUID(), username: 'alice', email: 'a@example.test' });
  const expired = await issueAccessToken(server.signingKey!, config.auth, { sub: randomUUID(), username: 'bob', email: 'b@example.test' }, -60);
  await server.inject({ method: 'GET', url: '/api/discover-posts', headers: bearer(token) });
  await server.inject({ method: 'GET', url: '/api/discover-posts', headers: bearer(expired) });
  await server.inject({ method: 'GET', url: `/api/discover-posts?access_token=${token}`, headers: { cookie: `token=${token}` } });
  await server.inject({ method: 'POST', url: '/api/like', headers: bearer(token), payload: '{bad json' });
  await server.inject({ method: 'GET', url: `/app/account#access_token=${token}` });
  await server.inject({ method: 'GET', url: `/nope?token=${token}` });
  // An invite link and the sign-in pages that carry its code: a code lets anyone in (issue 45).
  const invite = 'Inv1teCodeThatMustNotLeak_x';
  await server.inject({ method: 'GET', url: `/?invite=${invite}` });
  await server.inject({ method: 'GET', url: `/oauth2/signup?response_type=token&client_id=shower-beer&invite=${invite}&redirect_uri=x` });
  const signed = await presign(server, token, { fileName: 'a.jpg', fileType: 'image/jpeg' });
  const { uploadUrl } = signed.json() as { uploadUrl: string };
  const sig = new URL(uploadUrl).searchParams.get('sig')!;
  await server.inject({ method: 'PUT', url: injectUrl(uploadUrl), headers: { 'content-type': 'image/jpeg' }, payload: await makeJpeg(32, 32) });
  await server.inject({ method: 'PUT', url: injectUrl(uploadUrl), headers: { 'content-type': 'image/jpeg' }, payload: Buffer.from('again') });

  const log = lines.join('');
  t.ok(lines.length > 10, `the log was captured (${lines.length} lines)`);
  t.match(log, /discover-posts/, 'requests are logged');
  t.match(log, /access_token=\[redacted\]/, 'a token in a query string is logged masked');
  t.notOk(log.includes(invite), 'an invite code is not in the log');
  t.match(log, /invite=\[redacted\]/, 'an invite code in a query string is logged masked');
  for (const [name, secret] of Object.entries({ token, expired, signature: sig })) {
    t.notOk(log.includes(secret), `the ${name} is not in the log`);
    // Parts are secrets too: a JWT's signature alone, or its payload, identify the session.
    const last = secret.split('.').pop()!;
    t.notOk(log.includes(last), `the ${name}'s last part is not in the log`);
  }
});
