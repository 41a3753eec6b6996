// The HTTP ceiling: a bare Fastify route answering a constant 20-post page of
// the feed's JSON shape (serialized on every request, as the real route does).
// Started by the bench as its own process: PORT, PAGE_FILE (JSON array).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 3999);
const page: unknown = JSON.parse(readFileSync(process.env.PAGE_FILE!, 'utf8'));

const app = Fastify({ logger: false });
app.get('/page', async () => page);
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
