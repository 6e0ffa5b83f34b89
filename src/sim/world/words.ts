/**
 * Vocabulary the synthetic catalogue is composed from. Plain data; plausibility is the only aim.
 * Lists are '|'-separated strings so they stay compact; an empty entry means "no word here".
 */
function list(text: string): readonly string[] {
  return text.split('|');
}

export const TITLE_ADJECTIVES = list(
  'Silent|Hidden|Last|Broken|Golden|Crimson|Midnight|Forgotten|Wild|Quiet|Burning|Lost|Secret|Hollow|Winter|' +
    'Summer|Bitter|Velvet|Iron|Paper',
);

export const TITLE_NOUNS = list(
  'Orchard|Harbor|Lighthouse|Garden|Crown|River|Library|Bakery|Island|Letter|Promise|Kingdom|Witness|Station|' +
    'Circle|Daughter|Road|Manor|Shore|Fire',
);

export const FIRST_NAMES = list(
  'Ava|Noah|Mira|Leo|Clara|Jonah|Iris|Felix|Nora|Theo|June|Silas|Hazel|Ezra|Maya|Rosa|Aiden|Lena|Owen|Tessa',
);

export const LAST_NAMES = list(
  'Hart|Quinn|Calloway|Mercer|Ashby|Lindqvist|Okafor|Delgado|Brennan|Vance|Moreau|Sato|Whitlock|Kowalski|' +
    'Reyes|Fairchild|Novak|Ellery|Thorne|Abbott',
);

/** Genre nouns: a book's keywords are built around the nouns of its genre. */
export const GENRES: readonly (readonly string[])[] = [
  list('mystery|cozy mystery|detective novel|whodunit|amateur sleuth mystery'),
  list('romance|romantic comedy|love story|second chance romance|enemies to lovers romance'),
  list('fantasy|epic fantasy|dragon fantasy|magic academy|fae romance'),
  list('thriller|psychological thriller|crime thriller|suspense novel|domestic thriller'),
  list('science fiction|space opera|dystopian novel|time travel|first contact'),
  list('historical fiction|ww2 fiction|regency romance|victorian mystery|family saga'),
];

export const KEYWORD_MODIFIERS = list(
  '|cozy|dark|small town|paranormal|clean|funny|british|standalone|new|best|bestselling|award winning|short|' +
    'slow burn|feel good|gripping|twisty|literary|christmas|summer|beach read|female lead|found family|witchy|' +
    'gothic|spicy|sweet|epic|debut|classic|modern|heartwarming|unputdownable|emotional|adventure|mythology|' +
    'historical|contemporary|kindle unlimited',
);

export const KEYWORD_SUFFIXES = list(
  '|books|book series|novels|kindle|ebook|for women|for adults|box set|series complete|books 2026|audiobook|' +
    'paperback|free|new releases|book 1|trilogy|collection|stories|books for teens|with romance|by new authors|' +
    'read|recommendations|hardcover',
);

export const REVIEW_OPENINGS = list(
  'I could not put this down.|A slow start, but worth it.|Not my usual genre, and I loved it.|' +
    'The characters felt real.|I wanted to like this more than I did.|What an ending!|' +
    'The pacing dragged in the middle.|Received an advance copy; this is my honest review.',
);

export const REVIEW_DETAILS = list(
  'The setting is vivid and the dialogue sharp.|The twist in the last act caught me off guard.|' +
    'Some plot threads were left hanging.|The romance subplot felt rushed.|I read it in one sitting.|' +
    'The audiobook narration is excellent.|Too many characters to keep track of.|Already waiting for the sequel.',
);

export const REVIEW_TITLES = list(
  'Loved it|A solid read|Great characters|Not for me|Unputdownable|Mixed feelings|Five stars|Good but long|' +
    'A gem|Disappointing ending',
);
