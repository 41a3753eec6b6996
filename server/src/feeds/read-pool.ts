import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { PostsRepository } from '../posts/posts-repository.js';
import { createTagPages } from '../hashtags/hashtags-repository.js';
import { createReadTasks, type ReadCall, type ReadReply, type ReadTask, type ReadTaskArgs, type ReadTasks } from './read-tasks.js';

/** Runs feed reads and gives their JSON text: ASCII bytes from a worker, or the text when run inline. */
export interface ReadPool {
  run<K extends ReadTask>(task: K, args: ReadTaskArgs[K]): Promise<string | Buffer>;
  /** Worker threads in use (0: reads run inline on the request thread). */
  readonly size: number;
  /** The live worker threads (one may be missing while it is replaced). */
  threads(): Worker[];
  close(): Promise<void>;
}

interface Pending {
  resolve(json: Buffer): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker | null;
  pending: Map<number, Pending>;
  /** Calls not yet sent: what this turn of the event loop asked for, sent as one message. */
  queued: ReadCall[];
}


const fromSource = import.meta.url.endsWith('.ts');
const workerUrl = new URL(`./read-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);

function newWorker(file: string): Worker {
  if (!fromSource) return new Worker(workerUrl, { workerData: { file } });
  // Running the TypeScript sources (tsx, tap): a worker does not inherit the
  // loader on Node 20, so the thread registers tsx before importing the worker.
  const boot = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(boot, { eval: true, workerData: { file } });
}

/**
 * Feed pages (SQL, mapping, serialization: ~75% of a feed request's CPU) run on
 * `workers` threads with their own read-only connections, so the request thread
 * keeps HTTP, authentication and every write, and a second core does the rest.
 * WAL lets readers run beside the writer; a reader sees what was committed
 * before its statement began, so a client reads its own acknowledged writes.
 * With 0 workers, or a database only this connection can see (:memory:), the
 * same tasks run inline on `posts`, the request thread's repository on `sqlite`.
 */
export async function createReadPool(sqlite: Database.Database, posts: PostsRepository, workers: number): Promise<ReadPool> {
  let inline: ReadTasks | undefined;
  const runInline = <K extends ReadTask>(task: K, args: ReadTaskArgs[K]): Promise<string> => {
    inline ??= createReadTasks(posts, createTagPages(sqlite, posts));
    try {
      return Promise.resolve((inline[task] as (a: ReadTaskArgs[K]) => string)(args));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  };
  if (workers <= 0 || sqlite.memory) return { run: runInline, size: 0, threads: () => [], close: async () => {} };

  const file = sqlite.name;
  let closing = false;
  let nextId = 1;
  const slots: Slot[] = [];

  const failAll = (slot: Slot, err: Error) => {
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
    slot.queued = [];
  };

  // Each wake-up of a sleeping thread costs more than the message it carries (measured here: a
  // lone round trip 48 µs of CPU, 7.6 µs each with ten in flight), so the calls made during one
  // turn of the event loop go to a worker together, once the turn's I/O callbacks have run.
  let flushing = false;
  const flush = () => {
    flushing = false;
    for (const slot of slots) {
      if (slot.queued.length === 0) continue;
      const batch = slot.queued;
      slot.queued = [];
      if (slot.worker) slot.worker.postMessage(batch);
      else {
        for (const call of batch) {
          slot.pending.get(call.id)?.reject(new Error('read worker exited'));
          slot.pending.delete(call.id);
        }
      }
    }
  };

  const start = (slot: Slot) =>
    new Promise<void>((resolve, reject) => {
      const worker = newWorker(file);
      let ready = false;
      worker.on('message', (message: 'ready' | ReadReply[]) => {
        if (message === 'ready') {
          ready = true;
          if (closing) void worker.terminate();
          else slot.worker = worker;
          return resolve();
        }
        for (const reply of message) {
          const p = slot.pending.get(reply.id);
          if (!p) continue;
          slot.pending.delete(reply.id);
          if ('body' in reply) p.resolve(Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength));
          else p.reject(new Error(`read worker: ${reply.error}`));
        }
      });
      worker.on('error', (err) => {
        if (!ready) reject(err);
        failAll(slot, err);
      });
      worker.on('exit', (code) => {
        slot.worker = null;
        failAll(slot, new Error(`read worker exited (${code})`));
        if (!ready) return reject(new Error(`read worker exited (${code}) before it was ready`));
        // A worker that died is replaced; until then its share runs on the others (or inline).
        if (!closing) setTimeout(() => void (closing ? undefined : start(slot).catch(() => {})), 1000).unref();
      });
    });

  for (let i = 0; i < workers; i++) slots.push({ worker: null, pending: new Map(), queued: [] });
  try {
    await Promise.all(slots.map(start));
  } catch (err) {
    closing = true;
    await Promise.all(slots.map((s) => s.worker?.terminate()));
    throw err;
  }

  return {
    size: workers,
    threads: () => slots.flatMap((s) => (s.worker ? [s.worker] : [])),
    run(task, args) {
      // The least busy live worker takes the page.
      let best: Slot | undefined;
      for (const s of slots) if (s.worker && (!best || s.pending.size < best.pending.size)) best = s;
      if (!best?.worker) return runInline(task, args);
      const id = nextId++;
      const slot = best;
      return new Promise<Buffer>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.queued.push({ id, task, args });
        if (!flushing) {
          flushing = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      closing = true;
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          if (!worker) return;
          const exited = new Promise((resolve) => worker.once('exit', resolve));
          worker.postMessage('close');
          const timer = setTimeout(() => void worker.terminate(), 2000);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
