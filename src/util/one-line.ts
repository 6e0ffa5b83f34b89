/**
 * Text from the public (a reviewer's name, a review or book title, a keyword) shown where one line
 * is expected: runs of whitespace and line breaks become one space and other control characters
 * go, so the text cannot print a line of its own that reads like an alert. Review bodies are not
 * passed through this: they keep their lines, quoted.
 */
export function oneLine(text: string): string {
  return text
    .replace(/[\s\u0085]+/gu, ' ')
    .replace(/\p{Cc}+/gu, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}
