/**
 * A one-line progress bar on stderr, redrawn in place. Silent when stderr is not a terminal
 * (CI, pipes, tests), so logs stay clean.
 */
export interface Progress {
  tick(done: number, note?: string): void;
  done(note?: string): void;
}

export function progressBar(
  label: string,
  total: number,
  { enabled = process.stderr.isTTY === true } = {},
): Progress {
  const started = Date.now();
  let lastDraw = 0;
  const draw = (done: number, note = '') => {
    const width = 24;
    const filled = total > 0 ? Math.round((width * Math.min(done, total)) / total) : width;
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    process.stderr.write(
      `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${seconds}s ${note}\x1b[K`,
    );
  };
  return {
    tick(done, note) {
      if (!enabled) return;
      const now = Date.now();
      if (now - lastDraw < 100 && done < total) return;
      lastDraw = now;
      draw(done, note);
    },
    done(note) {
      if (!enabled) return;
      draw(total, note);
      process.stderr.write('\n');
    },
  };
}
