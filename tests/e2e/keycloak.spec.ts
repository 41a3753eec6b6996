// What keycloak/shower-beer-realm.json promises, checked against a real Keycloak (the Keycloak
// lane of `npm run test:stack`, scripts/test-stack.ts): brute-force detection, the password
// policy on Keycloak's own Register page, and that our API takes only this realm's tokens made
// for this app. Elsewhere there is no Keycloak to ask: skipped.
import { randomBytes } from 'node:crypto';
import { admin, keycloakUrl, passwordGrant, REALM, userId } from './keycloak-admin';
import { LoginPage } from './pages/login-page';
import { SignInPage } from './pages/sign-in-page';
import { ensureKeycloakUser } from './session';
import { accessToken, expect, newUser, joinViaApi, test } from './fixtures';

test.describe('Keycloak’s own promises', () => {
  test.beforeEach(({ provider }) => {
    test.skip(provider !== 'keycloak' || !keycloakUrl(), 'needs a real Keycloak and its admin API: the Keycloak lane of npm run test:stack');
  });

  test('brute-force detection: the 10th wrong password locks the name, and the right one is refused too', async ({ page, provider }) => {
    // The account as an administrator makes it; this browser has never signed in.
    const user = newUser();
    await ensureKeycloakUser(user);
    const realm = await admin<{ failureFactor: number; quickLoginCheckMilliSeconds: number }>('GET', REALM);
    const failures = realm.body.failureFactor;
    expect(failures).toBe(10);
    const id = await userId(user.username);
    const status = async () =>
      (await admin<{ disabled: boolean; numFailures: number }>('GET', `${REALM}/attack-detection/brute-force/users/${id}`)).body;

    const signIn = new SignInPage(page, provider);
    await new LoginPage(page).goto();
    await new LoginPage(page).startLogin();
    for (let i = 1; i <= failures; i++) {
      // Two failures closer than quickLoginCheckMilliSeconds lock the name at once (Keycloak's
      // "quick login" check, on by default): a person's typing is slower than that.
      await page.waitForTimeout(realm.body.quickLoginCheckMilliSeconds + 100);
      // Keycloak shows its form again after each refusal.
      await signIn.signIn({ ...user, password: `wrong-${i}-password` });
      await expect(page.getByText('Invalid username or password.')).toBeVisible();
      if (i === failures - 1) expect(await status()).toMatchObject({ disabled: false, numFailures: failures - 1 });
    }
    expect(await status()).toMatchObject({ disabled: true, numFailures: failures });
    // Locked: the right password gets the same message (Keycloak does not say the name is locked,
    // so a guesser learns nothing), and the app is not entered.
    await signIn.signIn(user);
    await expect(page.getByText('Invalid username or password.')).toBeVisible();
    await expect(page).not.toHaveURL(/\/app\//);
  });

  test('the password policy refuses a short password on Keycloak’s Register page', async ({ page, provider }) => {
    const user = newUser();
    await new LoginPage(page).goto();
    await new LoginPage(page).startLogin();
    await new SignInPage(page, provider).signUp({ ...user, password: 'short7!' });
    await expect(page.getByText('Invalid password: minimum length 8.')).toBeVisible();
    await expect(page).not.toHaveURL(/\/app\//);
    // Nothing was made: the name is still free.
    expect(await userId(user.username)).toBeNull();
  });

  test('the API refuses a token of another realm or another client (401), and takes the app’s own', async ({ page, provider, request }) => {
    await joinViaApi(page, provider);
    const own = await accessToken(page);
    const call = (token: string) => request.get('/api/user-posts', { headers: { authorization: `Bearer ${token}` } });
    expect((await call(own!)).status()).toBe(200);

    // Another realm with everything else the same: a client called shower-beer whose tokens
    // carry the audience shower-beer-api. Only the issuer differs.
    const other = `other-${randomBytes(3).toString('hex')}`;
    const password = `Other-realm-${randomBytes(4).toString('hex')}`;
    const made = await admin('POST', '', {
      realm: other,
      enabled: true,
      clients: [
        {
          clientId: 'shower-beer',
          publicClient: true,
          directAccessGrantsEnabled: true,
          protocolMappers: [
            {
              name: 'audience',
              protocol: 'openid-connect',
              protocolMapper: 'oidc-audience-mapper',
              config: { 'included.custom.audience': 'shower-beer-api', 'access.token.claim': 'true' },
            },
          ],
        },
      ],
      users: [
        {
          username: 'mallory',
          email: 'mallory@example.test',
          firstName: 'Mal',
          lastName: 'Lory',
          enabled: true,
          emailVerified: true,
          credentials: [{ type: 'password', value: password, temporary: false }],
        },
      ],
    });
    expect(made.status).toBe(201);
    try {
      const res = await passwordGrant(other, 'shower-beer', 'mallory', password);
      expect(res.status).toBe(200);
      const token = ((await res.json()) as { access_token: string }).access_token;
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iss: string; aud: string | string[] };
      expect([claims.aud].flat()).toContain('shower-beer-api');
      const refused = await call(token);
      expect(refused.status()).toBe(401);
      expect(await refused.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });

      // This realm, another client (a password-grant client an operator might add for a script).
      const clientId = `script-${randomBytes(3).toString('hex')}`;
      expect((await admin('POST', `${REALM}/clients`, { clientId, publicClient: true, directAccessGrantsEnabled: true })).status).toBe(201);
      const person = newUser();
      expect(
        (
          await admin('POST', `${REALM}/users`, {
            username: person.username,
            email: person.email,
            firstName: 'Script',
            lastName: 'User',
            enabled: true,
            emailVerified: true,
            credentials: [{ type: 'password', value: person.password, temporary: false }],
          })
        ).status,
      ).toBe(201);
      const grant = await passwordGrant(REALM, clientId, person.username, person.password);
      expect(grant.status).toBe(200);
      const scriptToken = ((await grant.json()) as { access_token: string }).access_token;
      expect((await call(scriptToken)).status()).toBe(401);
    } finally {
      await admin('DELETE', other);
    }
  });
});
