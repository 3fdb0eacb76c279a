import { fileURLToPath } from 'node:url';

/** The repository root, from this file's location. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The seed study `npm run exp:seeds` reads by default (docs/STUDIES.md). */
export const DEFAULT_STUDY = 'studies/default-16';
