import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Test } from 'tap';
import type { Storage } from '../../src/kernel/storage/storage.js';

/**
 * What every storage driver must do, run against each one:
 *   storageContract(t, () => createLocalStorage(config))
 * Each test works under its own random prefix, so a shared bucket is fine.
 */
export function storageContract(t: Test, makeStorage: () => Promise<Storage>) {
  const prefix = () => `contract-${randomUUID()}`;

  const readAll = async (storage: Storage, key: string) => {
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.read(key)) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks);
  };

  const listAll = async (storage: Storage, p: string) => {
    const out: { key: string; lastModified: Date }[] = [];
    for await (const item of storage.list(p)) out.push(item);
    return out.sort((a, b) => a.key.localeCompare(b.key));
  };

  t.test('a written buffer reads back byte for byte, and stat gives its size', async (t) => {
    const storage = await makeStorage();
    const key = `${prefix()}/a/file.bin`;
    const body = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    await storage.write(key, body, 'application/octet-stream');
    t.same(await storage.stat(key), { size: body.length });
    t.ok((await readAll(storage, key)).equals(body), 'same bytes');
    await storage.delete(key);
  });

  t.test('a written stream reads back byte for byte', async (t) => {
    const storage = await makeStorage();
    const key = `${prefix()}/stream.webp`;
    const parts = [Buffer.alloc(100_000, 1), Buffer.alloc(50_000, 2), Buffer.from('end')];
    await storage.write(key, Readable.from(parts), 'image/webp');
    const back = await readAll(storage, key);
    t.equal(back.length, 150_003);
    t.ok(back.equals(Buffer.concat(parts)), 'same bytes');
    t.same(await storage.stat(key), { size: 150_003 });
    await storage.delete(key);
  });

  t.test('writing a key again replaces its content', async (t) => {
    const storage = await makeStorage();
    const key = `${prefix()}/x.txt`;
    await storage.write(key, Buffer.from('first version'), 'text/plain');
    await storage.write(key, Buffer.from('second'), 'text/plain');
    t.equal((await readAll(storage, key)).toString(), 'second');
    t.same(await storage.stat(key), { size: 6 });
    await storage.delete(key);
  });

  t.test('a missing key: stat is null, read rejects, delete is fine', async (t) => {
    const storage = await makeStorage();
    const key = `${prefix()}/missing.bin`;
    t.equal(await storage.stat(key), null);
    await t.rejects(storage.read(key));
    await t.resolves(storage.delete(key));
  });

  t.test('delete removes the object', async (t) => {
    const storage = await makeStorage();
    const key = `${prefix()}/gone.bin`;
    await storage.write(key, Buffer.from('bye'), 'application/octet-stream');
    await storage.delete(key);
    t.equal(await storage.stat(key), null);
    await t.rejects(storage.read(key));
    t.same(await listAll(storage, key), []);
  });

  t.test('list yields the keys under a prefix, nested ones too, with their times', async (t) => {
    const storage = await makeStorage();
    const p = prefix();
    const before = Date.now() - 60_000;
    const keys = [`${p}/uploads/1/a`, `${p}/uploads/1/b`, `${p}/uploads/22/c`];
    for (const key of [...keys, `${p}/media/m1/display.webp`, `${p}/uploads-not/d`]) {
      await storage.write(key, Buffer.from(key), 'application/octet-stream');
    }
    const listed = await listAll(storage, `${p}/uploads/`);
    t.same(
      listed.map((i) => i.key),
      keys,
    );
    for (const item of listed) {
      t.ok(item.lastModified instanceof Date, 'lastModified is a Date');
      t.ok(item.lastModified.getTime() > before && item.lastModified.getTime() < Date.now() + 60_000, 'recent');
    }
    t.same(
      (await listAll(storage, `${p}/uploads/1/`)).map((i) => i.key),
      keys.slice(0, 2),
    );
    t.same(await listAll(storage, `${p}/nothing-here/`), []);
    for (const key of [...keys, `${p}/media/m1/display.webp`, `${p}/uploads-not/d`]) await storage.delete(key);
    t.same(await listAll(storage, `${p}/`), []);
  });

  t.test('ping answers when the storage is reachable', async (t) => {
    const storage = await makeStorage();
    await t.resolves(storage.ping());
  });

  t.test('a presigned PUT URL is absolute, names the key, and differs per key', async (t) => {
    const storage = await makeStorage();
    const key = `uploads/7/${randomUUID()}`;
    const raw = await storage.presignPut(key, 'image/jpeg', 900);
    const url = new URL(raw);
    t.match(url.protocol, /^https?:$/);
    t.ok(url.pathname.endsWith(`/${key}`), `path ends with the key: ${url.pathname}`);
    t.ok([...url.searchParams.keys()].length > 0, 'carries a signature in the query');
    t.not(await storage.presignPut(`uploads/7/${randomUUID()}`, 'image/jpeg', 900), raw, 'another key, another URL');
  });
}
