import t from 'tap';
import { bearerToken } from '../../src/kernel/auth/bearer.js';
import { HttpError } from '../../src/kernel/errors.js';
import { buildTestApp } from '../helpers.js';

const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';

t.test('one bearer parser: the scheme in any case (RFC 6750 with RFC 9110), one or more spaces, a JWT', async (t) => {
  for (const header of [`Bearer ${jwt}`, `bearer ${jwt}`, `BEARER ${jwt}`, `Bearer   ${jwt}`]) {
    t.equal(bearerToken(header), jwt, header.slice(0, 10));
  }
  for (const header of [undefined, '', 'Bearer', `Basic ${jwt}`, `Bearer\t${jwt}`, `Bearer ${jwt} extra`, 'Bearer not-a-jwt', `Token ${jwt}`]) {
    let status: number | undefined;
    try {
      bearerToken(header);
    } catch (err) {
      if (err instanceof HttpError) status = err.statusCode;
    }
    t.equal(status, 401, `${JSON.stringify(header)}: 401`);
  }
});

t.test('the API and the provider take the scheme in any case, and both refuse what is not a bearer token alike', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
    const headers = { authorization: `${scheme} ${alice.token}` };
    t.equal((await app.inject({ method: 'GET', url: '/api/me', headers })).statusCode, 200, `${scheme}: the API`);
    t.equal((await app.inject({ method: 'GET', url: '/oauth2/userInfo', headers })).statusCode, 200, `${scheme}: userInfo`);
  }
  for (const url of ['/api/me', '/oauth2/userInfo']) {
    const res = await app.inject({ method: 'GET', url, headers: { authorization: `Basic ${alice.token}` } });
    t.equal(res.statusCode, 401, `${url}: another scheme`);
    t.equal(res.json<{ message: string }>().message, 'The Authorization header must be "Bearer <token>".');
  }
});
