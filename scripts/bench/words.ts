// Word lists for synthetic usernames, captions and comments.

export const ADJECTIVES = [
  'hoppy', 'foamy', 'chilled', 'sudsy', 'malty', 'crisp', 'golden', 'steamy', 'hazy', 'bitter', 'amber', 'frosty',
  'lazy', 'sunny', 'misty', 'brave', 'quiet', 'happy', 'sleepy', 'wild', 'tiny', 'grand', 'salty', 'cosmic',
  'dusty', 'lucky', 'mellow', 'noble', 'rapid', 'shiny', 'velvet', 'zesty',
];

export const NOUNS = [
  'otter', 'brewer', 'lager', 'stout', 'pilsner', 'walrus', 'heron', 'falcon', 'badger', 'panda', 'porter', 'ale',
  'gose', 'kolsch', 'cider', 'moose', 'beaver', 'fox', 'lynx', 'owl', 'tern', 'yak', 'bison', 'crab', 'koala',
  'gecko', 'llama', 'seal', 'squid', 'wombat', 'raven', 'shower',
];

const OPENERS = [
  'After the', 'Nothing beats a', 'Post-', 'Sunday', 'Monday night', 'Friday', 'Finally home:', 'Earned this',
  'Cold one after the', 'Tiny bathroom, big', 'Hot water, cold', 'Steam and', 'Best part of the',
];
const THINGS = [
  '10k run', 'long shift', 'hike', 'gym session', 'move', 'garden work', 'bike ride', 'football match', 'exam',
  'snow shovelling', 'roof repair', 'flight', 'double shift', 'swim', 'deadline',
];
const TAILS = ['', '', ' 🍺', ' 🚿🍺', '!', '.', ' #showerbeer', ' — perfect.', ' cheers', ' 10/10'];

export const COMMENTS = [
  'Cheers!', 'Classic.', 'Living the dream 🍺', 'Which beer is that?', 'Respect.', 'Same here tonight',
  'That looks so cold', 'Now I want one', 'Legend', 'Shower beer club 🚿', 'Perfect pour', 'Best ritual',
  'Hah, love it', 'Nice tiles', 'What a combo', 'Good call', 'Earned it!', 'Prost!', 'Skål!', 'Salud 🍻',
];

export function caption(pick: <T>(items: readonly T[]) => T): string {
  const opener = pick(OPENERS);
  const thing = pick(THINGS);
  return `${opener}${opener.endsWith('-') ? '' : ' '}${thing}${pick(TAILS)}`;
}
