import { InputError } from '../../lib/errors.ts';
/** A result file that cannot be used: `path:line: field 'f': detail`, or `path: detail` for the whole file (line 0). */
export class ResultFileError extends InputError {
  override name = 'ResultFileError';

  constructor(
    readonly path: string,
    readonly line: number,
    readonly field: string | undefined,
    detail: string,
  ) {
    // One line whatever the file holds: control characters are shown escaped.
    const message = `${path}${line > 0 ? `:${line}` : ''}: ${field !== undefined ? `field '${field}': ` : ''}${detail}`;
    super(message.replace(/[\u0000-\u001f\u007f]/g, (char) => JSON.stringify(char).slice(1, -1)));
  }
}

/** A ResultFileError about the whole file (line 0, no field). */
export const fileError = (path: string, detail: string) => new ResultFileError(path, 0, undefined, detail);
