/**
 * The one way a workspace id (or any free-text part) goes into a Redis key.
 *
 * '%', ':', '{' and '}' become %XX (upper-case hex): a ':' would make a key ambiguous (two
 * workspaces could build the same key), a brace could open a hash tag of its own and move the key
 * to another Redis Cluster slot than its prefix's. The escape is injective.
 *
 * Configured workspace ids are lowercase letters, digits and '-' (config-kit/fields.ts idField), so
 * for them this is the identity: the keys written before this helper (some rooms used
 * encodeURIComponent, some the id as it was) are the same bytes.
 */
export function keyPart(text: string): string {
  return text.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
