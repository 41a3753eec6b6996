// A read worker: its own connection to the WAL database, read-only, answering
// feed pages as JSON text for the request thread (see read-pool.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { createPostsRepository } from '../domain/posts-repository.js';
import { openReader } from '../db/client.js';
import { createReadTasks, type ReadTask } from './read-tasks.js';

interface Call {
  id: number;
  task: ReadTask;
  args: never;
}

const port = parentPort!;
const sqlite = openReader((workerData as { file: string }).file);
const tasks = createReadTasks(createPostsRepository(sqlite));
const encoder = new TextEncoder();

port.on('message', (message: Call | 'close') => {
  if (message === 'close') {
    sqlite.close();
    port.close();
    return;
  }
  try {
    // UTF-8 bytes in a buffer of their own, moved (not copied) to the request thread, which writes them to the socket as they are.
    const body = encoder.encode(tasks[message.task](message.args));
    port.postMessage({ id: message.id, body }, [body.buffer]);
  } catch (err) {
    port.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) });
  }
});
port.postMessage('ready');
