import t from 'tap';
import { normalizeTag, tagsOf, textParts } from '../../src/contract/entities.js';

const kinds = (text: string) => textParts(text).map((p) => (p.kind === 'text' ? p.text : `${p.kind}:${'tag' in p ? p.tag : p.kind === 'remote' ? `${p.username}@${p.host}` : p.username}`));

t.test('a tag is letters, digits and _ in any script', async (t) => {
  t.same(tagsOf('Cold one #ShowerBeer #after_work #2024beer'), ['showerbeer', 'after_work', '2024beer']);
  t.same(tagsOf('#日本酒 #пиво #बियर #بيرة #Ελλάδα #맥주'), ['日本酒', 'пиво', 'बियर', 'بيرة', 'ελλάδα', '맥주'], 'CJK, Cyrillic, Devanagari with its marks, Arabic, Greek, Hangul');
  t.same(tagsOf('#beer! #beer, (#beer) #beer.'), ['beer'], 'punctuation ends a tag; each tag once');
  t.same(tagsOf('#beer-pong'), ['beer'], 'a dash ends it');
  t.same(tagsOf('issue #47 and #1'), [], 'digits only are not tags');
  t.same(tagsOf('# beer ##beer'), [], 'a lone # or a doubled one is text');
});

t.test('tags match without case and after NFKC', async (t) => {
  t.same(tagsOf('#Beer #beer #BEER #ｂｅｅｒ ＃Beer'), ['beer'], 'one tag: case, full-width letters and a full-width #');
  t.equal(normalizeTag('Ｓｈｏｗｅｒ'), 'shower');
  t.equal(normalizeTag('ﬁzz'), 'fizz', 'a ligature is its letters');
  t.equal(normalizeTag('bad tag'), null);
  t.equal(normalizeTag('<script>'), null);
  t.equal(normalizeTag(''), null);
});

t.test('nothing inside a URL or an e-mail address is a tag or a mention', async (t) => {
  const text = 'see https://example.com/page#beer and www.example.org/#top or mail ale@example.com, a&#35;b, x#y';
  t.same(tagsOf(text), []);
  t.same(textParts(text).filter((p) => p.kind !== 'text'), [], 'no mention either');
  t.same(kinds('https://x.test/@bob #real'), ['https://x.test/@bob ', 'tag:real'], 'the tag after the URL is one');
});

t.test('limits: a tag is at most 100 characters', async (t) => {
  const hundred = 'a'.repeat(100);
  t.same(tagsOf(`#${hundred}`), [hundred]);
  t.same(tagsOf(`#${hundred}b`), [], 'past 100 it is not a tag');
  t.equal(normalizeTag('日'.repeat(100)), '日'.repeat(100), 'characters, not bytes');
});

t.test('mentions: local names, and @name@host as a remote one', async (t) => {
  t.same(kinds('cheers @friend and @Ale.'), ['cheers ', 'mention:friend', ' and ', 'mention:Ale', '.'], 'a full stop after a name is not part of it');
  t.same(kinds('hi @bob@beer.example!'), ['hi ', 'remote:bob@beer.example', '!']);
  t.same(kinds('mail bob@beer.example'), ['mail bob@beer.example'], 'an address is text');
  t.same(kinds('＠ＦＲＩＥＮＤ'), ['mention:FRIEND'], 'NFKC: full-width');
  const text = 'Hi @bob, #Beer https://x.test/#a';
  t.equal(textParts(text).map((p) => p.text).join(''), text, 'joined back, the parts are the text');
});
