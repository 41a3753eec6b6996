import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import t from 'tap';
import app from '../../src/app.js';
import { findAppRoot, loadConfig } from '../../src/kernel/config.js';
import { fastifyOptions } from '../../src/fastify-options.js';
import { OPENAPI_PATH } from '../../src/kernel/openapi.js';
import { bearer, buildTestApp } from '../helpers.js';

// ---- The parts of an OpenAPI 3 document this test reads ----

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  format?: string;
}
interface ResponseObject {
  content?: Record<string, { schema?: JsonSchema }>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
  security?: Array<Record<string, string[]>>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, unknown> };
  security?: Array<Record<string, string[]>>;
}
interface RouteKey {
  method: string;
  url: string;
}

/** Takes no token and no input, so it has no client error to declare (5xx only). */
const NO_CLIENT_ERRORS = new Set([`GET ${OPENAPI_PATH}`]);

/** Fastify's `/account/:username/follow` as OpenAPI spells it: `/account/{username}/follow`. */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const resolve = (doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined => {
  const ref = schema?.$ref;
  if (!ref) return schema;
  return resolve(doc, doc.components?.schemas?.[ref.replace('#/components/schemas/', '')]);
};

const jsonSchemaOf = (response: ResponseObject | undefined) => response?.content?.['application/json']?.schema;

/** A download (GET /api/export's zip): a media type other than JSON whose schema is OpenAPI's binary string. */
const isFile = (doc: OpenApiDocument, response: ResponseObject) =>
  Object.entries(response.content ?? {}).some(([mediaType, { schema }]) => {
    const resolved = resolve(doc, schema);
    return !mediaType.includes('json') && resolved?.type === 'string' && resolved.format === 'binary';
  });

/** `{ error, message }`, both required strings: errors.ts's one error shape. */
function isErrorBody(doc: OpenApiDocument, raw: JsonSchema | undefined): boolean {
  const schema = resolve(doc, raw);
  if (!schema?.properties) return false;
  return ['error', 'message'].every(
    (field) => resolve(doc, schema.properties![field])?.type === 'string' && (schema.required ?? []).includes(field),
  );
}

/**
 * What the document lacks for the /api routes among `routes` (HEAD and OPTIONS
 * aside): each problem as "METHOD /path: what is missing"; empty when every one
 * is documented with an answer schema and the error shape.
 */
function undocumented(routes: readonly RouteKey[], doc: OpenApiDocument): string[] {
  const problems: string[] = [];
  for (const { method, url } of routes) {
    if (!url.startsWith('/api/') || method === 'HEAD' || method === 'OPTIONS') continue;
    const name = `${method} ${url}`;
    const operation = doc.paths[openapiPath(url)]?.[method.toLowerCase()];
    if (!operation) {
      problems.push(`${name}: not in the document`);
      continue;
    }
    const responses = Object.entries(operation.responses ?? {});
    const success = responses.some(
      ([status, response]) =>
        /^2(\d\d|XX)$/.test(status) &&
        (jsonSchemaOf(response) !== undefined || (status === '204' && !response.content) || isFile(doc, response)),
    );
    if (!success) problems.push(`${name}: no 2xx answer with an application/json schema (nor a 204 without a body, nor a file)`);
    const clientError = responses.some(([status, response]) => /^4(\d\d|XX)$/.test(status) && isErrorBody(doc, jsonSchemaOf(response)));
    if (!clientError && !NO_CLIENT_ERRORS.has(name)) problems.push(`${name}: no 4xx answer with the { error, message } shape`);
  }
  return problems;
}

/**
 * The app as helpers.ts's buildTestApp builds it (same options, same settings),
 * with an onRoute hook added first so every route is recorded; `extra` is
 * registered after the app, as a route file added later would be.
 */
async function buildRecordingApp(
  t: { teardown(fn: () => unknown): void },
  extra?: FastifyPluginAsync,
): Promise<{ app: FastifyInstance; routes: RouteKey[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://localhost:3000',
    LOG_LEVEL: 'silent',
    WEB_DIST_DIR: join(dataDir, 'no-web'),
    READ_WORKERS: '0',
  });
  const fastify = Fastify(fastifyOptions(config));
  const routes: RouteKey[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url ?? route.path });
  });
  await fastify.register(fp(app), { config });
  if (extra) await fastify.register(fp(extra));
  await fastify.ready();
  t.teardown(async () => {
    await fastify.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { app: fastify, routes };
}

const fetchDocument = async (fastify: FastifyInstance) => {
  const res = await fastify.inject({ method: 'GET', url: OPENAPI_PATH });
  return { res, doc: res.json<OpenApiDocument>() };
};

t.test('GET /api/openapi.json answers without a token, as OpenAPI 3', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const { res, doc } = await fetchDocument(app);
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  t.equal(res.headers['cache-control'], 'no-cache');
  t.ok(doc.openapi.startsWith('3.'), `openapi ${doc.openapi}`);
  const pkg = JSON.parse(readFileSync(join(findAppRoot(), 'package.json'), 'utf8')) as { version: string };
  t.same(doc.info, { title: 'Shower Beer API', version: pkg.version });
  t.same(doc.components?.securitySchemes, { bearer: { type: 'http', scheme: 'bearer' } });
  t.same(doc.security, [{ bearer: [] }], 'every operation needs the token unless it says otherwise');
  t.same(doc.paths[OPENAPI_PATH]?.get?.security, [], 'the document itself says it needs none');

  // The API only: no sign-in pages, discovery, health, config, media, upload PUT or SPA routes.
  t.same(Object.keys(doc.paths).filter((path) => !path.startsWith('/api/')), [], 'only /api paths');

  // A token changes nothing: the route is public either way.
  const alice = await createUser('alice');
  const signedIn = await app.inject({ method: 'GET', url: OPENAPI_PATH, headers: bearer(alice.token) });
  t.equal(signedIn.statusCode, 200);
  t.equal(signedIn.body, res.body, 'the same document');
});

t.test('every /api route is documented with its answer and error schemas', async (t) => {
  const { app, routes } = await buildRecordingApp(t);
  const { res, doc } = await fetchDocument(app);
  t.equal(res.statusCode, 200);
  // Routes of each kind were recorded: a route file's, media's own /api routes, a prefixed one.
  for (const name of ['GET /api/discover-posts', 'POST /api/create-post', 'GET /api/admin/overview']) {
    t.ok(routes.some((r) => `${r.method} ${r.url}` === name), `${name} recorded`);
  }
  t.same(undocumented(routes, doc), [], 'nothing is missing');

  // The Post schema reaches the document whole: the feed's answer lists its fields.
  const feed = resolve(doc, jsonSchemaOf(doc.paths['/api/discover-posts']?.get?.responses?.['200']));
  t.equal(feed?.type, 'array');
  const post = resolve(doc, feed?.items);
  for (const field of ['postid', 's3Url', 'caption', 'isAnonymous', 'created_at', 'username', 'likeCount', 'likedByUser', 'commentCount', 'comments']) {
    t.ok(post?.properties?.[field], `Post.${field} in the discover-posts answer`);
  }
  // Writes declare the rate limit's answer too.
  t.ok(isErrorBody(doc, jsonSchemaOf(doc.paths['/api/like']?.post?.responses?.['429'])), 'POST /api/like declares 429');
});

t.test('a new /api route without a schema fails the check', async (t) => {
  // As a route file registered in api.ts would be: under /api, behind the token.
  const forgotten: FastifyPluginAsync = async (fastify) => {
    await fastify.register(
      async (api) => {
        api.addHook('onRequest', api.authenticate);
        api.get('/forgotten/:id', async () => ({ ok: true }));
      },
      { prefix: '/api' },
    );
  };
  const { app, routes } = await buildRecordingApp(t, forgotten);
  const { doc } = await fetchDocument(app);
  t.ok(doc.paths['/api/forgotten/{id}'], 'the route is in the document (swagger saw it)');
  t.same(undocumented(routes, doc), [
    'GET /api/forgotten/:id: no 2xx answer with an application/json schema (nor a 204 without a body, nor a file)',
    'GET /api/forgotten/:id: no 4xx answer with the { error, message } shape',
  ]);
  // And a route swagger never saw (the plugin registered after the routes) is reported too.
  t.same(undocumented([{ method: 'DELETE', url: '/api/never-seen' }], doc), ['DELETE /api/never-seen: not in the document']);
});

t.test('error answers keep their whole shape through the declared schemas', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  // 413 (a body past bodyLimit) is answered through the '4xx' schema now.
  const big = await app.inject({
    method: 'POST',
    url: '/api/comment',
    headers: { ...bearer(alice.token), 'content-type': 'application/json' },
    payload: JSON.stringify({ postId: 1, comment: 'x'.repeat(70 * 1024) }),
  });
  t.equal(big.statusCode, 413);
  t.same(Object.keys(big.json()).sort(), ['error', 'message']);
  t.equal(big.json().error, 'payload_too_large');
  // 415 (a body that is not JSON; text/plain has a parser of its own and fails the schema: 400), the same way.
  const text = await app.inject({
    method: 'POST',
    url: '/api/like',
    headers: { ...bearer(alice.token), 'content-type': 'application/xml' },
    payload: '<like postId="1"/>',
  });
  t.equal(text.statusCode, 415);
  t.same(Object.keys(text.json()).sort(), ['error', 'message']);
  // 403 for a suspended account, through the 403 schema every route has now.
  app.database.sqlite.prepare('UPDATE users SET suspended_at = ? WHERE id = ?').run(Date.now(), alice.id);
  const suspended = await app.inject({ method: 'GET', url: '/api/discover-posts', headers: bearer(alice.token) });
  t.equal(suspended.statusCode, 403);
  t.match(suspended.json(), { error: 'account_suspended', message: String });
});
