import { afterEach } from 'vitest';

// Many tests run the CLI with spawnSync, which blocks this worker's event loop, and vitest moves
// from one synchronous test to the next without letting the loop poll. A file of such tests can
// then hold the worker off its messages from vitest for over a minute on a loaded machine, and
// vitest's call to report progress times out ("Timeout calling onTaskUpdate"), an error that
// fails the run though every test passed. One turn of the loop after each test lets the replies in.
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
