import t from 'tap';
import { bearerToken } from '../../src/auth/bearer.js';
import { HttpError } from '../../src/errors.js';

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
