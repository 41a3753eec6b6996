import t from 'tap';
import { LruMap } from '../src/kernel/lru.js';

t.test('an LruMap keeps the most recently used entries up to its size', async (t) => {
  const lru = new LruMap<string, number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  t.equal(lru.get('a'), 1, 'a is read: now the most recently used');
  lru.set('c', 3);
  t.equal(lru.size, 2);
  t.equal(lru.get('b'), undefined, 'b, the least recently used, was dropped');
  t.equal(lru.get('a'), 1);
  lru.set('a', 10);
  t.equal(lru.size, 2, 'setting a kept key replaces it without dropping another');
  t.equal(lru.get('c'), 3);
  t.equal(lru.get('a'), 10);
  lru.delete('a');
  t.equal(lru.get('a'), undefined);
  lru.clear();
  t.equal(lru.size, 0);
});
