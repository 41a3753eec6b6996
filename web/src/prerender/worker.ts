/// <reference types="node" />
// The prerender's entry (web/vite.config.ts builds it for Node into dist/.ssr/prerender.mjs):
// the server runs it in a worker thread when it loads a build (server/src/web/prerender.ts),
// hands it the run-time config, and gets back each prerendered path's HTML (prerender/render.tsx).
// A worker of its own because the app's modules read sessionStorage and localStorage: here
// those are in-memory stand-ins on this thread's global object, never the server's.
import { parentPort, workerData } from 'node:worker_threads';
import type { AppConfig } from '@/lib/config';

class MemoryStorage {
  #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.#items.set(key, String(value));
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  clear() {
    this.#items.clear();
  }
}

Object.assign(globalThis, { sessionStorage: new MemoryStorage(), localStorage: new MemoryStorage() });

// After the stand-ins exist: some of the app's modules read storage as they load.
const { renderPages } = await import('./render');
parentPort!.postMessage(await renderPages((workerData as { config: AppConfig }).config));
