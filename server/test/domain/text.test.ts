import t from 'tap';
import { cleanText, confusableSkeleton, hasHiddenCharacters } from '../../src/kernel/text.js';
import { buildTestApp } from '../helpers.js';
import { client, insertPost } from '../api/factories.js';

t.test('cleanText: NFC, no direction controls or invisible characters, marks limited, joiners kept where they join', async (t) => {
  t.equal(cleanText('photo\u202Egpj.exe'), 'photogpj.exe', 'a right-to-left override is dropped');
  t.equal(cleanText('\u2066a\u2069 \u200Fb\u200E'), 'a b', 'isolates and marks too');
  t.equal(cleanText('be\u200Ber\uFEFF\u2060'), 'beer', 'zero-width characters are dropped');
  t.equal(cleanText('Cafe\u0301'), 'Caf\u00e9', 'NFC');
  const zalgo = cleanText('Z' + '\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309'.repeat(3));
  t.ok(Array.from(zalgo.normalize('NFD')).length <= 1 + 4 + 1, `at most 4 marks stacked: ${JSON.stringify(zalgo)}`);
  t.equal(cleanText('👨\u200D👩\u200D👧 family'), '👨\u200D👩\u200D👧 family', 'emoji sequences keep their joiner');
  t.equal(cleanText('می\u200Cخواهم'), 'می\u200Cخواهم', 'Persian keeps its non-joiner');
  t.equal(cleanText('x\u200Dy \u200Cz'), 'xy z', 'stray joiners go');
  t.equal(cleanText(' \r\nbeer\u0007 \n'), 'beer', 'line endings, control characters and the ends are cleaned too');
  t.equal(cleanText('Cheers 🍺 Ça va, ñandú, 乾杯'), 'Cheers 🍺 Ça va, ñandú, 乾杯', 'ordinary text is untouched');
});

t.test('confusable skeletons (TR39) pair names that look alike', async (t) => {
  for (const lookalike of ['aIice', 'a1ice', 'AIice', '\u0430lice' /* Cyrillic a */, 'alice']) t.equal(confusableSkeleton(lookalike), confusableSkeleton('alice'), lookalike);
  t.equal(confusableSkeleton('rnary'), confusableSkeleton('mary'));
  t.not(confusableSkeleton('bob'), confusableSkeleton('alice'));
  t.ok(hasHiddenCharacters('ali\u200Bce'));
  t.ok(hasHiddenCharacters('\u202Eecila'));
  t.notOk(hasHiddenCharacters('alice'));
});

t.test('captions and comments are stored without hidden characters', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const asAlice = client(app, alice.token);
  const post = insertPost(app.database.sqlite, { userId: alice.id, caption: 'x' });
  const added = await asAlice('POST', '/api/comment', { postId: post.id, comment: 'nice \u202Egpj.exe\u200B ' + 'o\u0301\u0302\u0303\u0304\u0305\u0306\u0307' });
  t.equal(added.status, 201);
  t.equal(added.json.content, 'nice gpj.exe ' + 'ó\u0302\u0303\u0304\u0305');
  const listed = await asAlice('GET', `/api/comment?postId=${post.id}`);
  t.equal(listed.json[0].content, added.json.content, 'as stored');
  const blank = await asAlice('POST', '/api/comment', { postId: post.id, comment: '\u200B\u202E\u2066' });
  t.equal(blank.status, 400, 'a comment of hidden characters only is empty');
});
