/** Moved to src/util (the API contract loader uses it too); kept here for the config modules. */
export { suggest } from '../util/suggest.ts';
