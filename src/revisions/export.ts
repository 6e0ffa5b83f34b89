/** A stored document as YAML a person may read and `config apply` accepts unchanged. */
import { stringify } from 'yaml';
import { shown } from './diff.ts';
import type { JsonObject } from './document.ts';

/** Secrets show as `[secret]`, which `propose` reads as "keep the secret stored here". */
export function documentYaml(document: JsonObject): string {
  return stringify(shown(document), { lineWidth: 0 });
}

/** The document with sealed secrets replaced by `[secret]`, for pages and JSON. */
export function shownDocument(document: JsonObject): JsonObject {
  return shown(document) as JsonObject;
}
