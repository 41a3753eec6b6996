import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/kernel/config.js';
import { createLocalStorage } from '../../src/kernel/storage/local.js';
import { storageContract } from './contract.js';

const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-storage-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'https://beer.example', LOG_LEVEL: 'silent' });

t.test('storage contract (local driver)', async (t) => {
  storageContract(t, () => createLocalStorage(config));
});

t.test('the upload secret is created once, private, and reused', async (t) => {
  const a = await createLocalStorage(config);
  const file = join(dataDir, 'keys', 'upload-url-secret');
  t.equal(statSync(file).mode & 0o777, 0o600);
  const b = await createLocalStorage(config);
  const url = new URL(await a.presignPut('uploads/1/abc', 'image/jpeg', 60));
  const q = url.searchParams;
  t.equal(url.origin + url.pathname, 'https://beer.example/uploads/1/abc');
  t.equal(b.verifyPut('uploads/1/abc', 'image/jpeg', q.get('exp')!, q.get('sig')!), 'ok', 'a restarted server accepts it');
});

t.test('a signed upload URL is bound to its key, type and expiry', async (t) => {
  const storage = await createLocalStorage(config);
  const signedAt = Date.now();
  const q = new URL(await storage.presignPut('uploads/1/abc', 'image/jpeg', 60)).searchParams;
  const exp = q.get('exp')!;
  const sig = q.get('sig')!;
  t.equal(q.get('ct'), 'image/jpeg');
  t.equal(storage.verifyPut('uploads/1/abc', 'image/jpeg', exp, sig), 'ok');
  t.equal(storage.verifyPut('uploads/1/abc', 'image/jpeg', exp, sig, signedAt + 60_000), 'ok', 'still good when its 60 s are up');
  t.equal(storage.verifyPut('uploads/1/abd', 'image/jpeg', exp, sig), 'invalid', 'other key');
  t.equal(storage.verifyPut('uploads/1/abc', 'image/png', exp, sig), 'invalid', 'other type');
  t.equal(storage.verifyPut('uploads/1/abc', 'image/jpeg', String(Number(exp) + 1000), sig), 'invalid', 'extended expiry');
  const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
  t.equal(storage.verifyPut('uploads/1/abc', 'image/jpeg', exp, flipped), 'invalid', 'tampered signature');
  t.equal(storage.verifyPut('uploads/1/abc', 'image/jpeg', exp, 'short'), 'invalid');
  t.equal(storage.verifyPut('uploads/1/abc', 'image/jpeg', exp, sig, Number(exp) * 1000 + 1), 'expired');
});

t.test('keys that could leave the storage folder are refused', async (t) => {
  const storage = await createLocalStorage(config);
  for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', '', 'a\\b']) {
    await t.rejects(storage.write(key, Buffer.from('x'), 'text/plain'), key);
    await t.rejects(storage.stat(key), key);
  }
});

t.test('a failed streamed write leaves no file behind', async (t) => {
  const storage = await createLocalStorage(config);
  const { Readable } = await import('node:stream');
  const failing = new Readable({
    read() {
      this.push(Buffer.alloc(1000));
      this.destroy(new Error('client went away'));
    },
  });
  await t.rejects(storage.write('uploads/9/broken', failing, 'image/jpeg'), /client went away/);
  t.equal(await storage.stat('uploads/9/broken'), null);
  t.same(readdirSync(join(config.storage.localDir, '.tmp')), [], 'no temp file left');
});
