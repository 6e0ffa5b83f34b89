/**
 * The bidirectional control characters, defined once for everything that shows untrusted text
 * (messages, the console, the terminal). As regular-expression character-class contents, so each
 * user builds the class it needs (`new RegExp(`[${BIDI_CONTROLS}]`, 'g')`).
 */

/** Embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069): they reorder the text
 * around them, so hostile text can read differently than it is ("Trojan Source"). */
export const BIDI_OVERRIDES = '\u202a-\u202e\u2066-\u2069';

/** Left-to-right and right-to-left marks (U+200E, U+200F): invisible, they set the direction of
 * the characters beside them. */
export const BIDI_MARKS = '\u200e\u200f';

/** Every bidi control: the marks and the overrides and isolates. */
export const BIDI_CONTROLS = BIDI_MARKS + BIDI_OVERRIDES;

const BIDI = new RegExp(`[${BIDI_CONTROLS}]`, 'g');

/**
 * The one way text is rid of bidi controls where it leaves the process: messages on every channel,
 * email subjects, text and HTML parts, the digest, exports. Right-to-left scripts still read right:
 * the Unicode bidi algorithm orders them without these characters.
 */
export function stripBidi(text: string): string {
  return text.replace(BIDI, '');
}
