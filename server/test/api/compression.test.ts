import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { accepts, COMPRESS_MIN_BYTES } from '../../src/kernel/compression.js';
import { bearer, buildTestApp } from '../helpers.js';
import { insertPosts } from './factories.js';

const BROWSER = 'gzip, deflate, br, zstd';

t.test('a feed page goes gzip-compressed to a client that takes gzip, and reads the same', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  insertPosts(app.database.sqlite, alice.id, 10);
  const url = '/api/discover-posts?limit=10';

  const plain = await app.inject({ method: 'GET', url, headers: bearer(bob.token) });
  t.equal(plain.statusCode, 200);
  t.equal(plain.headers['content-encoding'], undefined, 'a client that names no coding gets the JSON as it is');
  t.match(plain.headers.vary, /Accept-Encoding/, 'the answer says it depends on Accept-Encoding');
  const posts = plain.json() as unknown[];
  t.equal(posts.length, 10);
  t.ok(plain.rawPayload.length >= COMPRESS_MIN_BYTES, `the page is worth compressing (${plain.rawPayload.length} bytes)`);

  const zipped = await app.inject({ method: 'GET', url, headers: { ...bearer(bob.token), 'accept-encoding': BROWSER } });
  t.equal(zipped.statusCode, 200);
  t.equal(zipped.headers['content-encoding'], 'gzip');
  t.match(zipped.headers['content-type'], /^application\/json/);
  t.match(zipped.headers.vary, /Accept-Encoding/);
  t.equal(Number(zipped.headers['content-length']), zipped.rawPayload.length, 'Content-Length is the compressed size');
  t.same(JSON.parse(gunzipSync(zipped.rawPayload).toString('utf8')), posts, 'the same posts once decompressed');
  t.ok(
    zipped.rawPayload.length < plain.rawPayload.length / 2,
    `less than half the bytes (${zipped.rawPayload.length} of ${plain.rawPayload.length})`,
  );

  const refused = await app.inject({ method: 'GET', url, headers: { ...bearer(bob.token), 'accept-encoding': 'gzip;q=0, br' } });
  t.equal(refused.headers['content-encoding'], undefined, 'gzip;q=0 refuses gzip: the JSON goes as it is');
  t.same(refused.json(), posts);
});

t.test('small answers, errors and the export zip go as they are', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const headers = { ...bearer(alice.token), 'accept-encoding': BROWSER };

  const me = await app.inject({ method: 'GET', url: '/api/me', headers });
  t.equal(me.statusCode, 200);
  t.ok(me.rawPayload.length < COMPRESS_MIN_BYTES, 'a small answer');
  t.equal(me.headers['content-encoding'], undefined, 'not compressed: the headers are most of its cost');
  t.equal((me.json() as { username: string }).username, 'alice');

  const unsigned = await app.inject({ method: 'GET', url: '/api/discover-posts', headers: { 'accept-encoding': BROWSER } });
  t.equal(unsigned.statusCode, 401);
  t.equal(unsigned.headers['content-encoding'], undefined);
  t.match(unsigned.json(), { error: 'unauthorized' }, 'the error is readable JSON');

  const zip = await app.inject({ method: 'GET', url: '/api/export', headers });
  t.equal(zip.statusCode, 200);
  t.equal(zip.headers['content-encoding'], undefined, 'the zip is not compressed again');
  t.equal(zip.rawPayload.subarray(0, 4).toString('hex'), '504b0304', 'a zip as sent');
});

t.test('accepts: codings, q-values and case', async (t) => {
  t.equal(accepts(undefined, 'gzip'), false);
  t.equal(accepts('', 'gzip'), false);
  t.equal(accepts('gzip', 'gzip'), true);
  t.equal(accepts('GZIP', 'gzip'), true);
  t.equal(accepts('deflate, gzip;q=0.5', 'gzip'), true);
  t.equal(accepts('gzip;q=0', 'gzip'), false);
  t.equal(accepts('gzip;q=0.0, br', 'gzip'), false);
  t.equal(accepts('x-gzip', 'gzip'), false, 'another coding whose name contains it');
  t.equal(accepts('br;q=1', 'br'), true);
});
