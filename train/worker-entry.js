// Entry of the training worker thread: the thread needs its own TypeScript loader.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
