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

/** A ResultFileError naming no field: about the whole file (line 0), or about one line. */
export const fileError = (path: string, detail: string, line = 0) =>
  new ResultFileError(path, line, undefined, detail);
