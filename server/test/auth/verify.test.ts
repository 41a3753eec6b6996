import t from 'tap';
import { generateKeyPair, exportJWK, SignJWT, type CryptoKey, type JWK } from 'jose';
import { cacheVerifiedTokens, createTokenVerifier, usernameFromClaims } from '../../src/auth/verify.js';
import type { AuthConfig } from '../../src/config.js';

const auth: AuthConfig = {
  provider: 'embedded',
  issuer: 'http://localhost:3000',
  clientId: 'shower-beer',
  audience: 'shower-beer',
  jwksUrl: 'http://localhost:3000/.well-known/jwks.json',
  authorizeUrl: '',
  userInfoUrl: '',
  logoutUrl: '',
  tokenTtlSeconds: 900,
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
