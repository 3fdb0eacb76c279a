/**
 * Progress of long work on stderr. On a terminal, a one-line bar redrawn in place. Off a terminal
 * (CI, pipes, a log file) a bar would be a stream of carriage returns, so it is replaced by plain
 * lines, as the caller asks: `phases`, a line when the work starts and one when it ends (a phase of
 * training); `ticks`, a line for each unit done (a job of a study); `silent`, none.
 */
export interface Progress {
  tick(done: number, note?: string): void;
  done(note?: string): void;
}

export type OffTerminal = 'silent' | 'phases' | 'ticks';

export interface ProgressOptions {
  /** Whether stderr is a terminal (draw the bar); default: it is a TTY. */
  terminal?: boolean;
  /** What to print when it is not; default `silent`. */
  offTerminal?: OffTerminal;
  /** Where the text goes; default stderr. */
  write?: (text: string) => void;
}

export function progressBar(
  label: string,
  total: number,
  {
    terminal = process.stderr.isTTY === true,
    offTerminal = 'silent',
    write = (text) => process.stderr.write(text),
  }: ProgressOptions = {},
): Progress {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
  const withNote = (note: string | undefined) => (note === undefined || note === '' ? '' : ` ${note}`);
  let lastDraw = 0;
  const draw = (done: number, note = '') => {
    const width = 24;
    const filled = total > 0 ? Math.round((width * Math.min(done, total)) / total) : width;
    write(
      `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${seconds()}s ${note}\x1b[K`,
    );
  };
  if (!terminal && offTerminal === 'phases') write(`${label}: started, ${total} to do\n`);
  return {
    tick(done, note) {
      if (!terminal) {
        if (offTerminal === 'ticks') write(`${label} ${done}/${total} ${seconds()}s${withNote(note)}\n`);
        return;
      }
      const now = Date.now();
      if (now - lastDraw < 100 && done < total) return;
      lastDraw = now;
      draw(done, note);
    },
    done(note) {
      if (!terminal) {
        if (offTerminal === 'phases')
          write(`${label}: done, ${total}/${total} in ${seconds()}s${withNote(note)}\n`);
        return;
      }
      draw(total, note);
      write('\n');
    },
  };
}
