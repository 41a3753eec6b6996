import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { authorizeQuery, csrfFieldOf, fragmentOf, openForm, signIn, signUp, submit } from './idp-helpers.js';

const MANY = { RATE_LIMIT_AUTH_PER_MINUTE: '1000' };
const alice = { username: 'alice', email: 'alice@example.com', password: 'correct horse' };

t.test('the authorize link shows a sign-in page a person can use', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const res = await app.inject({ method: 'GET', url: `/oauth2/authorize?${authorizeQuery(config)}` });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/html; charset=utf-8/);
  t.equal(res.headers['cache-control'], 'no-store');
  const html = res.body;
  t.match(html, /<html lang="en">/);
  t.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  t.match(html, /Shower Beer/);
  t.match(html, /🍺/);
  t.match(html, /<label for="username">Username or email<\/label>/);
  t.match(html, /<input id="username" name="username" type="text" autocomplete="username"/);
  t.match(html, /<label for="password">Password<\/label>/);
  t.match(html, /<input id="password" name="password" type="password" autocomplete="current-password"/);
  t.match(html, /<button class="button" type="submit">Sign in<\/button>/);
  // The link to sign-up carries the authorize parameters (escaped for HTML).
  const link = /<a href="(\/oauth2\/signup\?[^"]+)">Create account<\/a>/.exec(html);
  t.ok(link, 'a Create account link');
  const signupQuery = new URLSearchParams(link![1]!.split('?')[1]!.replaceAll('&#38;', '&'));
  t.equal(signupQuery.get('redirect_uri'), 'http://localhost:3000/app/account');
  t.equal(signupQuery.get('state'), 'xyz 123/ü');
  // Strict CSP: no inline script or style anywhere, one stylesheet from our origin.
  t.notMatch(html, /<script/i);
  t.notMatch(html, /<style/i);
  t.notMatch(html, /\sstyle=/i);
  t.match(html, /<link rel="stylesheet" href="\/oauth2\/assets\/idp\.css\?v=[\w-]+">/);
  t.match(String(res.headers['content-security-policy']), /style-src 'self'/);
  const cookie = String(res.headers['set-cookie']);
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Strict/);
  t.match(cookie, /Path=\/oauth2/);
});

t.test('the stylesheet is served, cacheable, with beer colours and a dark mode', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const { html } = await openForm(app, config, 'authorize');
  const href = /href="(\/oauth2\/assets\/idp\.css\?v=[\w-]+)"/.exec(html)![1]!;
  const css = await app.inject({ method: 'GET', url: href });
  t.equal(css.statusCode, 200);
  t.match(css.headers['content-type'], /^text\/css/);
  t.match(css.headers['cache-control'], /public, max-age=31536000, immutable/);
  t.match(css.body, /#f2a900/);
  t.match(css.body, /prefers-color-scheme: dark/);
  t.match(css.body, /:focus-visible/);
  const stale = await app.inject({ method: 'GET', url: '/oauth2/assets/idp.css?v=old' });
  t.equal(stale.headers['cache-control'], 'public, max-age=300', 'an old version is not pinned for a year');
});

t.test('a bad authorization request gets an error page, never a redirect', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ['unknown client_id', { client_id: 'evil-app' }, /unknown client_id/],
    ['missing client_id', { client_id: undefined }, /client_id is missing/],
    ['foreign redirect_uri', { redirect_uri: 'https://evil.example/steal' }, /not registered/],
    ['redirect_uri with extra path', { redirect_uri: 'http://localhost:3000/app/account/x' }, /not registered/],
    ['redirect_uri of another scheme', { redirect_uri: 'https://localhost:3000/app/account' }, /not registered/],
    ['missing redirect_uri', { redirect_uri: undefined }, /redirect_uri is missing/],
    ['code flow', { response_type: 'code' }, /response_type=token/],
    ['missing response_type', { response_type: undefined }, /response_type=token/],
    ['unknown scope', { scope: 'openid admin' }, /The scope admin is not supported/],
  ];
  for (const [name, overrides, message] of cases) {
    for (const page of ['authorize', 'signup']) {
      const res = await app.inject({ method: 'GET', url: `/oauth2/${page}?${authorizeQuery(config, overrides)}` });
      t.equal(res.statusCode, 400, `${page}: ${name}`);
      t.equal(res.headers.location, undefined, `${page}: ${name} does not redirect`);
      t.match(res.headers['content-type'], /text\/html/);
      t.match(res.body, message, `${page}: ${name} says why`);
      t.match(res.body, /This sign-in link is not valid/);
    }
  }
  const twice = await app.inject({ method: 'GET', url: `/oauth2/authorize?${authorizeQuery(config)}&redirect_uri=https%3A%2F%2Fevil.example%2F` });
  t.equal(twice.statusCode, 400, 'a repeated parameter');
  t.equal(twice.headers.location, undefined);

  // The same checks guard the form submissions, even with a valid CSRF token and good credentials.
  await signUp(app, config, alice);
  const form = await openForm(app, config, 'authorize');
  const post = await submit(
    app,
    config,
    'authorize',
    { username: 'alice', password: alice.password, csrf_token: form.csrf, redirect_uri: 'https://evil.example/steal' },
    form.cookie,
  );
  t.equal(post.statusCode, 400);
  t.equal(post.headers.location, undefined, 'no token goes to a foreign address');
  t.notMatch(post.body, /access_token/);
});

t.test('the sign-up page has its fields and creates an account that is signed in at once', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const page = await openForm(app, config, 'signup');
  t.match(page.html, /<label for="username">Username<\/label>/);
  t.match(page.html, /<label for="email">Email<\/label>/);
  t.match(page.html, /<input id="email" name="email" type="email" autocomplete="email"/);
  t.match(page.html, /<label for="password">Password<\/label>/);
  t.match(page.html, /autocomplete="new-password"/);
  t.match(page.html, /<button class="button" type="submit">Create account<\/button>/);

  const res = await submit(app, config, 'signup', { ...alice, csrf_token: page.csrf }, page.cookie);
  t.equal(res.statusCode, 303);
  const location = String(res.headers.location);
  t.ok(location.startsWith('http://localhost:3000/app/account#'), location);
  const fragment = fragmentOf(location);
  t.equal(fragment.get('token_type'), 'Bearer');
  t.equal(fragment.get('expires_in'), '900');
  t.equal(fragment.get('state'), 'xyz 123/ü');
  t.match(location, /&state=xyz%20123%2F%C3%BC$/, 'state is URL-encoded');
  t.equal(fragment.get('new_account'), '1', 'the app is told the account is new, to welcome it');
  const claims = await app.verifyToken(fragment.get('access_token')!);
  t.equal(claims.preferred_username, 'alice');
  t.equal(claims.email, 'alice@example.com');
  t.equal(app.users.findBySub(claims.sub)?.username, 'alice', 'the API knows the new user');
});

t.test('sign-up explains each problem and keeps what was typed, never the password', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  t.equal((await signUp(app, config, alice)).statusCode, 303);

  const cases: [string, Partial<typeof alice>, string][] = [
    ['taken username in other case', { username: 'ALICE', email: 'other@example.com' }, 'That username is already taken. Please choose another.'],
    ['taken email in other case', { username: 'alice2', email: 'Alice@Example.COM' }, 'An account with this email already exists. Sign in instead.'],
    ['bad email', { username: 'bob', email: 'bob-at-example' }, 'Enter a valid email address, like name@example.com.'],
    ['short password', { username: 'bob', email: 'bob@example.com', password: 'short7!' }, 'Use a password of at least 8 characters.'],
    ['short username', { username: 'bo', email: 'bob@example.com' }, 'Choose a username of 3 to 30 characters: letters, digits, _ . and - only.'],
    ['long username', { username: 'b'.repeat(31), email: 'bob@example.com' }, 'Choose a username of 3 to 30 characters: letters, digits, _ . and - only.'],
    ['username with a space', { username: 'bob smith', email: 'bob@example.com' }, 'Choose a username of 3 to 30 characters: letters, digits, _ . and - only.'],
  ];
  for (const [name, change, message] of cases) {
    const user = { ...alice, password: 'another secret', ...change };
    const res = await signUp(app, config, user);
    t.equal(res.statusCode, 400, name);
    t.equal(res.headers.location, undefined, `${name}: no redirect`);
    t.ok(res.body.includes(message.replaceAll("'", '&#39;')), `${name}: says "${message}"`);
    t.match(res.body, /aria-invalid="true"/, `${name}: the field is marked`);
    t.ok(res.body.includes(`value="${user.username}"`), `${name}: the username is kept`);
    t.ok(res.body.includes(`value="${user.email}"`), `${name}: the email is kept`);
    t.notOk(res.body.includes(user.password), `${name}: the password is not echoed`);
  }
  const ok = await signUp(app, config, { username: 'b.o_b-1', email: 'bob@example.com', password: 'k7#Qv!2m' });
  t.equal(ok.statusCode, 303, 'letters, digits, _ . - and an 8-character password are fine');
});

t.test('what people typed is escaped in the page', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const evil = '"><script>alert(1)</script>';
  const form = await openForm(app, config, 'signup');
  const res = await submit(app, config, 'signup', { username: evil, email: `${evil}@x.y`, password: 'hoppy lager 42', csrf_token: form.csrf }, form.cookie);
  t.equal(res.statusCode, 400);
  t.notOk(res.body.includes('<script>'), 'no markup from input');
  t.ok(res.body.includes('&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;'), 'shown as text');
  const state = await app.inject({ method: 'GET', url: `/oauth2/authorize?${authorizeQuery(config, { state: evil })}` });
  t.notOk(state.body.includes('<script>'), 'state is escaped in hidden fields and links');
});

t.test('sign-in: the right password redirects with a token, a wrong one says so the same way for everyone', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  await signUp(app, config, alice);

  const wrong = await signIn(app, config, 'alice', 'not the password');
  t.equal(wrong.statusCode, 400);
  t.equal(wrong.headers.location, undefined);
  t.ok(wrong.body.includes('Wrong username/email or password.'));
  t.ok(wrong.body.includes('value="alice"'), 'the username stays filled in');
  t.notOk(wrong.body.includes('not the password'));

  const nobody = await signIn(app, config, 'nobody', 'not the password');
  t.equal(nobody.statusCode, wrong.statusCode);
  t.ok(nobody.body.includes('Wrong username/email or password.'), 'an unknown user gets the same message');

  const empty = await signIn(app, config, 'alice', '');
  t.equal(empty.statusCode, 400);
  t.match(empty.body, /Enter your username or email and your password\./);

  for (const login of ['alice', 'ALICE', 'alice@example.com', ' Alice@Example.com ']) {
    const res = await signIn(app, config, login, alice.password);
    t.equal(res.statusCode, 303, `sign in as "${login}"`);
    const claims = await app.verifyToken(fragmentOf(String(res.headers.location)).get('access_token')!);
    t.equal(claims.preferred_username, 'alice');
    t.equal(fragmentOf(String(res.headers.location)).get('new_account'), null, 'a returning sign-in is not welcomed again');
  }

  const form = await openForm(app, config, 'authorize', { state: undefined });
  const res = await submit(app, config, 'authorize', { username: 'alice', password: alice.password, csrf_token: form.csrf, state: undefined }, form.cookie);
  t.notMatch(String(res.headers.location), /state=/, 'no state when none was sent');
});

t.test('a form without a valid CSRF token is refused', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  await signUp(app, config, alice);
  const form = await openForm(app, config, 'authorize');
  const other = await openForm(app, config, 'authorize');
  const attempts: [string, Record<string, string | undefined>, string | undefined][] = [
    ['no cookie', { csrf_token: form.csrf }, undefined],
    ['no field', { csrf_token: undefined }, form.cookie],
    ['field from another browser', { csrf_token: other.csrf }, form.cookie],
    ['made-up field and cookie', { csrf_token: 'x'.repeat(43) }, `sb_idp_csrf=${'y'.repeat(43)}`],
  ];
  for (const [name, fields, cookie] of attempts) {
    for (const page of ['authorize', 'signup'] as const) {
      const user = page === 'authorize' ? { username: 'alice', password: alice.password } : { username: 'bob', email: 'bob@example.com', password: 'hoppy lager 42' };
      const res = await submit(app, config, page, { ...user, ...fields }, cookie);
      t.equal(res.statusCode, 403, `${page}: ${name}`);
      t.equal(res.headers.location, undefined, `${page}: ${name} signs nobody in`);
      t.match(res.body, /This form expired or did not come from this page/);
      // The page offers a fresh form to try again.
      t.ok(csrfFieldOf(res.body));
    }
  }
  const bob = await signIn(app, config, 'bob', 'hoppy lager 42');
  t.ok(bob.body.includes('Wrong username/email or password.'), 'the refused sign-up created nothing');
});

t.test('repeated failed sign-ins lock the account for a while', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  await signUp(app, config, alice);
  await signUp(app, config, { username: 'bob', email: 'bob@example.com', password: 'bob password' });
  for (let i = 0; i < 5; i++) {
    // Any case of the name counts the same.
    const res = await signIn(app, config, i % 2 ? 'alice' : 'ALICE', `wrong ${i}`);
    t.equal(res.statusCode, 400, `failure ${i + 1} is an ordinary wrong password`);
  }
  const locked = await signIn(app, config, 'alice', alice.password);
  t.equal(locked.statusCode, 429, 'even the right password is refused while locked');
  t.equal(locked.headers.location, undefined);
  t.ok(Number(locked.headers['retry-after']) > 800, 'Retry-After says how long');
  t.match(locked.body, /Too many failed sign-in attempts for this account\. Please wait 15 minutes and try again\./);

  const bob = await signIn(app, config, 'bob', 'bob password');
  t.equal(bob.statusCode, 303, 'other accounts are not affected');

  for (let i = 0; i < 5; i++) await signIn(app, config, 'ghost', 'wrong');
  const ghost = await signIn(app, config, 'ghost', 'wrong');
  t.equal(ghost.statusCode, 429, 'unknown names lock the same way, so locking reveals nothing');
});

t.test('sign-in and sign-up submissions are limited per address', async (t) => {
  const { app, config } = await buildTestApp(t, { RATE_LIMIT_AUTH_PER_MINUTE: '3' });
  const form = await openForm(app, config, 'authorize');
  for (let i = 0; i < 3; i++) {
    const res = await submit(app, config, 'authorize', { username: `user${i}`, password: 'whatever1', csrf_token: form.csrf }, form.cookie);
    t.equal(res.statusCode, 400);
  }
  const limited = await submit(app, config, 'authorize', { username: 'user9', password: 'whatever1', csrf_token: form.csrf }, form.cookie);
  t.equal(limited.statusCode, 429);
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After is set');
  t.match(limited.headers['content-type'], /text\/html/);
  t.match(limited.body, /Too many requests: try again in \d+ s\./);
  for (let i = 0; i < 3; i++) {
    const res = await submit(app, config, 'signup', { username: 'x', email: 'bob@example.com', password: 'hoppy lager 42', csrf_token: form.csrf }, form.cookie);
    t.equal(res.statusCode, 400, 'sign-up has its own budget');
  }
  const signup = await submit(app, config, 'signup', { username: 'bob', email: 'bob@example.com', password: 'hoppy lager 42', csrf_token: form.csrf }, form.cookie);
  t.equal(signup.statusCode, 429, 'sign-up is limited too');
  t.equal(signup.headers.location, undefined);
  const page = await app.inject({ method: 'GET', url: `/oauth2/authorize?${authorizeQuery(config)}` });
  t.equal(page.statusCode, 200, 'the page itself still shows');
});

t.test('the password is stored only as a salted scrypt hash', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  await signUp(app, config, alice);
  await signUp(app, config, { username: 'bob', email: 'bob@example.com', password: alice.password });
  const rows = app.database.sqlite
    .prepare('SELECT username, password_hash AS hash FROM idp_accounts ORDER BY username')
    .all() as { username: string; hash: string }[];
  t.equal(rows.length, 2);
  for (const row of rows) {
    t.match(row.hash, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/, `${row.username}: parameters, salt and hash`);
    t.notOk(row.hash.includes(alice.password));
    t.notOk(row.hash.includes(Buffer.from(alice.password).toString('base64url')));
  }
  t.not(rows[0]!.hash, rows[1]!.hash, 'the same password hashes differently (random salt)');
  const dump = JSON.stringify(app.database.sqlite.prepare('SELECT * FROM idp_accounts').all());
  t.notOk(dump.includes(alice.password), 'no column holds the password');
});

t.test('logout returns only to the app', async (t) => {
  const { app } = await buildTestApp(t, MANY);
  const good = await app.inject({
    method: 'GET',
    url: `/oauth2/logout?client_id=shower-beer&post_logout_redirect_uri=${encodeURIComponent('http://localhost:3000/')}`,
  });
  t.equal(good.statusCode, 303);
  t.equal(good.headers.location, 'http://localhost:3000/');
  t.match(String(good.headers['set-cookie']), /sb_idp_csrf=; Path=\/oauth2; Max-Age=0/);

  for (const target of ['https://evil.example/', 'http://localhost:3000/app/account', 'http://localhost:3000']) {
    const res = await app.inject({ method: 'GET', url: `/oauth2/logout?client_id=shower-beer&post_logout_redirect_uri=${encodeURIComponent(target)}` });
    t.equal(res.statusCode, 400, target);
    t.equal(res.headers.location, undefined, `${target}: no redirect`);
    t.match(res.body, /This sign-out link is not valid/);
  }
  const wrongClient = await app.inject({ method: 'GET', url: `/oauth2/logout?client_id=evil&post_logout_redirect_uri=${encodeURIComponent('http://localhost:3000/')}` });
  t.equal(wrongClient.statusCode, 400);
  t.equal(wrongClient.headers.location, undefined);

  const bare = await app.inject({ method: 'GET', url: '/oauth2/logout' });
  t.equal(bare.statusCode, 200);
  t.match(bare.body, /You are signed out/);
});

t.test('every authorize asks for credentials again (no single-sign-on session)', async (t) => {
  const { app, config } = await buildTestApp(t, MANY);
  const form = await openForm(app, config, 'signup');
  const res = await submit(app, config, 'signup', { ...alice, csrf_token: form.csrf }, form.cookie);
  t.equal(res.statusCode, 303);
  const again = await app.inject({
    method: 'GET',
    url: `/oauth2/authorize?${authorizeQuery(config)}`,
    headers: { cookie: form.cookie },
  });
  t.equal(again.statusCode, 200);
  t.equal(again.headers.location, undefined);
  t.match(again.body, /Username or email/);
});

t.test('the sign-in and sign-up pages clean what they show back as the API cleans text', async (t) => {
  const { app, config } = await buildTestApp(t);
  const typed = 'ev\u202Eil\u0007\u200B\u2066name\u0000\n\u001B[31m';
  const signInForm = await openForm(app, config, 'authorize');
  const signInRes = await submit(app, config, 'authorize', { username: typed, password: 'wrong password 123', csrf_token: signInForm.csrf }, signInForm.cookie);
  const signUpForm = await openForm(app, config, 'signup');
  const signUpRes = await submit(app, config, 'signup', { username: typed, email: `x\u202E@example.test\u0001`, password: 'a fine long password 77', csrf_token: signUpForm.csrf }, signUpForm.cookie);
  for (const [page, res] of [['sign-in', signInRes], ['sign-up', signUpRes]] as const) {
    t.equal(res.statusCode, 400, `${page}: refused`);
    // eslint-disable-next-line no-control-regex -- the characters that must not come back
    t.notMatch(res.body, /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u200B]/, `${page}: no control or direction character in the page`);
    t.notMatch(res.body, /&#(8238|7|0|27|8203|8294);/, `${page}: not even escaped`);
    t.match(res.body, /id="username" name="username"[^>]*value="evilname\[31m"/, `${page}: the rest of what was typed is kept`);
  }
  t.match(signUpRes.body, /value="x@example\.test"/, 'the e-mail too');
});
