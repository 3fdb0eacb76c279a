// Entry of the training worker thread: the thread needs its own TypeScript loader.
import { register } from 'tsx/esm/api';

register();
const { serveRequests } = await import('./dataParallelThread.ts');
serveRequests();
