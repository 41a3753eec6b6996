import t from 'tap';
import { lookupAllowed, remoteQuery } from '../../src/federation/follow-activities.js';

/** A resolver that knows a few names, as /etc/hosts or DNS would answer them. */
const names: Record<string, string[]> = {
  'b.test': ['127.0.0.1'],
  'c.test': ['127.0.0.1'],
  'mixed.example': ['93.184.216.34', '10.0.0.7'],
  'v6.example': ['fd00::1'],
  'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
};
const asked: string[] = [];
const resolveName = async (hostname: string) => {
  asked.push(hostname);
  const found = names[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const allowed = ['a.test:18443', 'b.test:18444'];
const may = (term: string, list: readonly string[] = allowed) => lookupAllowed(remoteQuery(term)!.host, list, resolveName);

t.test('with private hosts listed, a search asks a listed host or a name whose every address is public', async (t) => {
  asked.length = 0;
  t.equal(await may('@bob@b.test:18444'), true, 'a listed host:port');
  t.same(asked, [], 'is not even resolved');
  t.equal(await may('@eve@c.test:18445'), false, 'a name resolving to loopback, not listed');
  t.equal(await may('@bob@b.test:9999'), false, 'a listed name on another port');
  t.equal(await may('@eve@mixed.example'), false, 'a name with one private address among public ones');
  t.equal(await may('@eve@v6.example'), false, 'a unique-local IPv6 address');
  t.equal(await may('@eve@nowhere.example'), false, 'a name that does not resolve');
  t.equal(await may('@ann@public.example'), true, 'a name whose addresses are all public');
  t.equal(await may('https://c.test:18445/users/1'), false, 'an actor URL on the unlisted host');
  t.equal(await may('http://public.example/users/1'), false, 'plain http to a host not listed');
  t.equal(await may('https://127.0.0.1:18446/users/1'), false, 'a loopback literal');
});

t.test('with no private host listed, names are resolved too: Fedify\'s own check is no longer what refuses them', async (t) => {
  asked.length = 0;
  t.equal(await may('@eve@c.test:18445', []), false, 'a name resolving to loopback');
  t.same(asked, ['c.test']);
  t.equal(await may('@ann@public.example', []), true, 'a name whose addresses are all public');
  t.equal(await may('https://127.0.0.1/users/1', []), false, 'literals are still refused here');
  t.equal(await may('https://[::ffff:7f00:1]/users/1', []), false, 'an IPv4-mapped loopback');
  t.equal(await may('https://2130706433/users/1', []), false, 'loopback as one decimal number');
});
