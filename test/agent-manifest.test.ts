import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../agent/index.ts';
import { manifestChecksum } from '../agent/checkpoint.ts';
import { cli, expectCliError as expectError } from './support/cli.ts';
import { saveUntrainedCheckpoint } from './support/checkpoint.ts';

// A checkpoint's manifest is validated as a whole before an agent plays from it: a field that
// loading could misread is refused in one line with exit 1, through the eval command.

let root: string;
let good: string;

beforeAll(async () => {
  await initBackend({ preference: 'wasm' });
  root = mkdtempSync(join(tmpdir(), 'tinyagent-manifest-'));
  good = join(root, 'good');
  saveUntrainedCheckpoint(good);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the good checkpoint whose manifest `edit` changed, signed anew unless `sign` is false. */
function edited(
  name: string,
  edit: (manifest: Record<string, unknown>) => void,
  { sign = true } = {},
): string {
  const dir = join(root, name);
  const { manifestChecksum: _old, ...fields } = JSON.parse(
    readFileSync(join(good, 'manifest.json'), 'utf8'),
  ) as Record<string, unknown>;
  edit(fields);
  const manifest = sign
    ? { ...fields, manifestChecksum: manifestChecksum(fields) }
    : { ...fields, manifestChecksum: _old };
  saveCopy(dir, manifest);
  return dir;
}

/** A checkpoint folder is two files: the good weights and the given manifest. */
function saveCopy(dir: string, manifest: Record<string, unknown>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'weights.bin'), readFileSync(join(good, 'weights.bin')));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

describe('eval refuses a checkpoint whose manifest loading could misread, with exit 1', () => {
  it('a tokenizer cut to 20 words: refused by the manifest checksum, and by the vocabulary check when signed anew', async () => {
    const cut = (manifest: Record<string, unknown>) => {
      manifest.tokenizer = (manifest.tokenizer as string[]).slice(0, 20);
    };
    await expectError(
      ['eval', '--checkpoint', edited('cut-unsigned', cut, { sign: false }), '--episodes', '1'],
      1,
      /manifest was edited or is corrupt/,
    );
    await expectError(
      ['eval', '--checkpoint', edited('cut-signed', cut), '--episodes', '1'],
      1,
      /the tokenizer has 20 words \(specials included\), the model's vocabulary 221/,
    );
  });

  it('variables holding null: a schema error naming the field, not a TypeError', async () => {
    const line = await expectError(
      [
        'eval',
        '--checkpoint',
        edited('null-variable', (manifest) => {
          (manifest.variables as unknown[])[0] = null;
        }),
        '--episodes',
        '1',
      ],
      1,
      /manifest\.json: variables\.0: /,
    );
    expect(line).not.toMatch(/Cannot read properties/);
  });

  it('a harness whose context does not fit the model (contextTokens 200)', async () => {
    await expectError(
      [
        'eval',
        '--checkpoint',
        edited('context-200', (manifest) => {
          manifest.harness = { ...(manifest.harness as object), contextTokens: 200 };
        }),
        '--episodes',
        '1',
      ],
      1,
      /harness contextTokens 200 plus maxActionTokens 3 exceeds the model's context length 128/,
    );
  });

  it('a harness with an unknown field, a tokenizer with duplicates, and one without the action words', async () => {
    await expectError(
      [
        'eval',
        '--checkpoint',
        edited('harness-field', (manifest) => {
          manifest.harness = { ...(manifest.harness as object), succes: 'public' };
        }),
        '--episodes',
        '1',
      ],
      1,
      /harness/,
    );
    await expectError(
      [
        'eval',
        '--checkpoint',
        edited('duplicates', (manifest) => {
          const words = manifest.tokenizer as string[];
          words[words.length - 1] = words[5] as string;
        }),
        '--episodes',
        '1',
      ],
      1,
      /duplicate word/,
    );
    await expectError(
      [
        'eval',
        '--checkpoint',
        edited('no-end', (manifest) => {
          const words = manifest.tokenizer as string[];
          words[words.indexOf('<end>')] = 'zzz-not-end';
        }),
        '--episodes',
        '1',
      ],
      1,
      /lacks the action words <end>/,
    );
  });

  it('a checkpoint that is sound still evaluates', async () => {
    const result = await cli(['eval', '--checkpoint', good, '--episodes', '1', '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { perTask: unknown[] }).perTask).toHaveLength(10);
  });
});
