import t from 'tap';
import { generateKeyPair, exportJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { cacheVerifiedTokens, createTokenVerifier, usernameFromClaims, withUserInfo } from '../../src/kernel/auth/verify.js';
import type { AuthConfig } from '../../src/kernel/config.js';

const auth: AuthConfig = {
  provider: 'embedded',
  issuer: 'http://localhost:3000',
  clientId: 'shower-beer',
  audience: 'shower-beer',
  jwksUrl: 'http://localhost:3000/.well-known/jwks.json',
  authorizeUrl: '',
  userInfoUrl: '',
  logoutUrl: '',
  accountUrl: '',
  userInfoServerUrl: '',
  discovery: null,
  tokenTtlSeconds: 900,
  adminUsernames: [],
};

async function keypair() {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' };
  return { privateKey: privateKey as CryptoKey, jwk };
}

function sign(key: CryptoKey, claims: Record<string, unknown> = {}, opts: { iss?: string; aud?: string; exp?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ preferred_username: 'alice', email: 'alice@example.test', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(opts.iss ?? auth.issuer)
    .setAudience(opts.aud ?? auth.audience)
    .setSubject('sub-alice')
    .setIssuedAt(now - 10)
    .setExpirationTime(opts.exp ?? now + 600)
    .sign(key);
}

t.test('a well-formed token is accepted and its claims returned', async (t) => {
  const { privateKey, jwk } = await keypair();
  const verify = createTokenVerifier(auth, [jwk]);
  const claims = await verify(await sign(privateKey));
  t.equal(claims.sub, 'sub-alice');
  t.equal(usernameFromClaims(claims), 'alice');
});

t.test('bad tokens are refused', async (t) => {
  const { privateKey, jwk } = await keypair();
  const other = await keypair();
  const verify = createTokenVerifier(auth, [jwk]);
  const now = Math.floor(Date.now() / 1000);
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(JSON.stringify({ sub: 'x', iss: auth.issuer, aud: auth.audience, exp: now + 600 })).toString('base64url');
  const cases: Record<string, string> = {
    'alg none': `${header}.${body}.`,
    'wrong key': await sign(other.privateKey),
    'wrong issuer': await sign(privateKey, {}, { iss: 'http://evil.test' }),
    'wrong audience': await sign(privateKey, {}, { aud: 'someone-else' }),
    expired: await sign(privateKey, {}, { exp: now - 60 }),
    garbage: 'not.a.token',
  };
  for (const [name, token] of Object.entries(cases)) {
    await t.rejects(verify(token), { name: 'TokenError' }, name);
  }
});

t.test('azp of our client stands in for the audience (Keycloak)', async (t) => {
  const { privateKey, jwk } = await keypair();
  const verify = createTokenVerifier(auth, [jwk]);
  const claims = await verify(await sign(privateKey, { azp: 'shower-beer' }, { aud: 'account' }));
  t.equal(claims.azp, 'shower-beer');
});

/** An access token shaped like Glewlwyd's (RFC 9068): typ at+jwt, client_id, aud = the scope string, no username. */
function rfc9068(key: CryptoKey, claims: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'shower-beer', scope: 'openid email profile', jti: 'j1', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
    .setIssuer(auth.issuer)
    .setAudience('openid email profile')
    .setSubject('sub-alice')
    .setIssuedAt(now - 10)
    .setExpirationTime(now + 600)
    .sign(key);
}

t.test('an RFC 9068 token that names our client in client_id is accepted like azp (Glewlwyd)', async (t) => {
  const { privateKey, jwk } = await keypair();
  const verify = createTokenVerifier(auth, [jwk]);
  const claims = await verify(await rfc9068(privateKey));
  t.equal(claims.sub, 'sub-alice');
  t.equal(claims.client_id, 'shower-beer');
  await t.rejects(verify(await rfc9068(privateKey, { client_id: 'another-app' })), { name: 'TokenError' }, 'another client is refused');
  await t.rejects(verify(await rfc9068(privateKey, { client_id: undefined })), { name: 'TokenError' }, 'no client and a foreign aud is refused');
  const configured = createTokenVerifier({ ...auth, audience: 'openid email profile' }, [jwk]);
  t.equal((await configured(await rfc9068(privateKey, { client_id: 'x' }))).sub, 'sub-alice', 'the audience stays configurable');
});

/** A userinfo endpoint stand-in: answers `body` (or throws), counting calls and keeping the last Authorization. */
function fakeUserInfo(answer: () => Response | Promise<Response>) {
  const seen = { calls: 0, authorization: '' };
  const doFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    seen.calls++;
    seen.authorization = String((init?.headers as Record<string, string>)?.authorization ?? '');
    return answer();
  }) as typeof fetch;
  return { seen, doFetch };
}
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

t.test('a token without a username: the provider\'s userinfo names the person, once per token', async (t) => {
  const { privateKey, jwk } = await keypair();
  const { seen, doFetch } = fakeUserInfo(() => json({ sub: 'sub-alice', preferred_username: 'alice.g', email: 'alice@glew.test' }));
  const verify = cacheVerifiedTokens(withUserInfo(createTokenVerifier(auth, [jwk]), 'http://idp.test/userinfo', { fetch: doFetch }));
  const token = await rfc9068(privateKey);
  const claims = await verify(token);
  t.equal(usernameFromClaims(claims), 'alice.g', 'the real username, not Beer Lover');
  t.equal(claims.email, 'alice@glew.test');
  t.equal(seen.authorization, `Bearer ${token}`, 'asked with the same token');
  await verify(token);
  t.equal(seen.calls, 1, 'cached with the verification');

  const named = await sign(privateKey, { preferred_username: 'bob' });
  t.equal(usernameFromClaims(await verify(named)), 'bob');
  t.equal(seen.calls, 1, 'a token that names its user is not looked up');
});

t.test('userinfo trouble never renames the person to Beer Lover', async (t) => {
  const { privateKey, jwk } = await keypair();
  const verifier = createTokenVerifier(auth, [jwk]);
  const token = await rfc9068(privateKey);

  const down = fakeUserInfo(() => Promise.reject(new TypeError('fetch failed')));
  const v1 = cacheVerifiedTokens(withUserInfo(verifier, 'http://idp.test/userinfo', { fetch: down.doFetch }));
  const err = await v1(token).then(() => null, (e: Error) => e);
  t.ok(err && err.name !== 'TokenError', 'unreachable: not accepted this time, as a temporary failure');
  t.notMatch(err?.message ?? '', token.slice(0, 20), 'the token is not in the message');
  await v1(token).catch(() => undefined);
  t.equal(down.seen.calls, 2, 'a failure is not cached');

  const refused = fakeUserInfo(() => json({ error: 'invalid_token' }, 401));
  await t.rejects(withUserInfo(verifier, 'http://idp.test/userinfo', { fetch: refused.doFetch })(token), { name: 'TokenError' });

  const other = fakeUserInfo(() => json({ sub: 'someone-else', preferred_username: 'mallory' }));
  await t.rejects(withUserInfo(verifier, 'http://idp.test/userinfo', { fetch: other.doFetch })(token), { name: 'TokenError' }, 'userinfo about another sub is refused');

  const slow = fakeUserInfo(() => new Promise<Response>(() => {}));
  const slowFetch = ((url: string, init?: RequestInit) =>
    new Promise<Response>((_resolve, reject) => {
      void slow.doFetch(url, init);
      init?.signal?.addEventListener('abort', () => reject(init.signal!.reason));
    })) as typeof fetch;
  const started = Date.now();
  const hold = setTimeout(() => {}, 5_000); // AbortSignal.timeout's timer does not keep the test process alive
  t.teardown(() => clearTimeout(hold));
  await t.rejects(withUserInfo(verifier, 'http://idp.test/userinfo', { fetch: slowFetch, timeoutMs: 200 })(token), /timed out/);
  t.ok(Date.now() - started < 2_000, 'gives up after its timeout');
});

t.test('the username comes from preferred_username, username, cognito:username, then e-mail', async (t) => {
  t.equal(usernameFromClaims({ sub: 's', username: 'bob' }), 'bob');
  t.equal(usernameFromClaims({ sub: 's', 'cognito:username': 'carol' }), 'carol');
  t.equal(usernameFromClaims({ sub: 's', email: 'dave@example.test' }), 'dave');
  t.equal(usernameFromClaims({ sub: 's' }), 'Beer Lover');
});

t.test('verified tokens are remembered until they expire, never longer, and failures are not', async (t) => {
  const { privateKey, jwk } = await keypair();
  const inner = createTokenVerifier(auth, [jwk]);
  let calls = 0;
  let clock = Date.now();
  const counted = async (token: string) => {
    calls++;
    return inner(token);
  };
  const verify = cacheVerifiedTokens(counted, 2, () => clock);
  const exp = Math.floor(clock / 1000) + 60;
  const token = await sign(privateKey, {}, { exp });
  t.equal((await verify(token)).sub, 'sub-alice');
  t.equal((await verify(token)).sub, 'sub-alice');
  t.equal(calls, 1, 'the second use of a token is not verified again');

  const forged = await sign((await keypair()).privateKey);
  await t.rejects(verify(forged), { name: 'TokenError' });
  await t.rejects(verify(forged), { name: 'TokenError' });
  t.equal(calls, 3, 'a refused token is checked every time');

  clock = exp * 1000 + 1;
  await verify(token).catch(() => undefined); // the inner verifier's own clock decides the outcome
  t.equal(calls, 4, 'past exp the cached entry is not used: the token goes through full verification again');

  clock = Date.now();
  const a = await sign(privateKey, { preferred_username: 'a' });
  const b = await sign(privateKey, { preferred_username: 'b' });
  const c = await sign(privateKey, { preferred_username: 'c' });
  for (const tok of [a, b, c]) await verify(tok);
  const before = calls;
  await verify(a);
  t.equal(calls, before + 1, 'the cache holds at most its bound (the oldest entry went first)');
});

t.test('the same new token sent several times at once is verified once, and the requests resume in the order they came', async (t) => {
  const { privateKey, jwk } = await keypair();
  const inner = createTokenVerifier(auth, [jwk]);
  let calls = 0;
  const releases: Array<() => void> = [];
  // Each verification waits until the test lets it finish, so the test decides the finishing order.
  const gated = async (token: string) => {
    calls++;
    await new Promise<void>((resolve) => releases.push(resolve));
    return inner(token);
  };
  const verify = cacheVerifiedTokens(gated);
  const token = await sign(privateKey, { preferred_username: 'alice' });
  const other = await sign(privateKey, { preferred_username: 'bob' });
  const order: string[] = [];
  const done = [
    verify(token).then(() => order.push('first')),
    verify(other).then(() => order.push('other')),
    verify(token).then(() => order.push('second')),
    verify(token).then(() => order.push('third')),
  ];
  t.equal(calls, 2, 'one verification per distinct token, however many requests carry it');
  releases[1]!(); // bob's finishes first
  releases[0]!();
  await Promise.all(done);
  t.same(order.filter((o) => o !== 'other'), ['first', 'second', 'third'], 'same-token requests resume in arrival order');
  await verify(token);
  t.equal(calls, 2, 'and the verified token is then remembered');

  const forged = await sign((await keypair()).privateKey);
  const refused = [verify(forged), verify(forged)];
  t.equal(calls, 3);
  releases[2]!();
  for (const r of refused) await t.rejects(r, { name: 'TokenError' });
  const again = verify(forged);
  t.equal(calls, 4, 'a refusal is shared only while it is in flight, never remembered');
  releases[3]!();
  await t.rejects(again, { name: 'TokenError' });
});
