/**
 * Progress of long work on stderr: on a terminal, a bar redrawn in place; off one, plain lines as
 * the caller asks: `phases`, at the start and the end; `ticks`, one per unit done; `silent`, none.
 */
export interface Progress {
  tick(done: number, note?: string): void;
  done(note?: string): void;
}

export type OffTerminal = 'silent' | 'phases' | 'ticks';

export function progressBar(
  label: string,
  total: number,
  {
    terminal = process.stderr.isTTY === true,
    offTerminal = 'silent',
    write = (text) => process.stderr.write(text),
  }: { terminal?: boolean; offTerminal?: OffTerminal; write?: (text: string) => void } = {},
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
