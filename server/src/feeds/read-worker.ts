// A read worker: its own connection to the WAL database, read-only, answering
// feed pages as JSON text for the request thread (see read-pool.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { createPostsRepository } from '../posts/posts-repository.js';
import { createTagPages } from '../hashtags/hashtags-repository.js';
import { openReader } from '../kernel/db/client.js';
import { createReadTasks, type ReadCall, type ReadReply } from './read-tasks.js';


const port = parentPort!;
const sqlite = openReader((workerData as { file: string }).file);
const posts = createPostsRepository(sqlite);
const tasks = createReadTasks(posts, createTagPages(sqlite, posts));

// Calls come in batches (read-pool.ts sends what a turn of the request thread's loop asked for
// as one message) and their answers go back as one message: one wake-up of each thread a batch.
port.on('message', (message: ReadCall[] | 'close') => {
  if (message === 'close') {
    sqlite.close();
    port.close();
    return;
  }
  const replies: ReadReply[] = [];
  const moved: ArrayBuffer[] = [];
  for (const call of message) {
    try {
      // The page is ASCII only (posts/page-json.ts), so its UTF-8 bytes are its Latin-1 bytes:
      // one copy per character (a quarter of what TextEncoder spent, ~13 µs less a reference
      // page; docs/performance.md). In a buffer of its own (not the pool's), moved, not copied,
      // to the request thread, which writes it to the socket as it is.
      const text = (tasks[call.task] as (args: unknown) => string)(call.args);
      const body = Buffer.allocUnsafeSlow(text.length);
      body.write(text, 0, 'latin1');
      replies.push({ id: call.id, body });
      moved.push(body.buffer);
    } catch (err) {
      replies.push({ id: call.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  port.postMessage(replies, moved);
});
port.postMessage('ready');
