// The action's `args` input split into words as a shell splits them, nothing expanded (pipeline/ci/split-args.ts).
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { splitArgs } from './split-args.js';

describe('splitArgs', () => {
  it('splits at unquoted whitespace, keeps quoted words whole, expands nothing', () => {
    expect(
      splitArgs(`  --model sim\n --fail-on 'system=graphiti unsafe > 0' --x "a \\"b\\" $HOME" c\\ d ''  `),
    ).toEqual(['--model', 'sim', '--fail-on', 'system=graphiti unsafe > 0', '--x', 'a "b" $HOME', 'c d', '']);
    expect(splitArgs('')).toEqual([]);
    expect(splitArgs(`'$(rm -rf /)' *`)).toEqual(['$(rm -rf /)', '*']);
  });

  it('refuses an unclosed quote, naming the input', () => {
    expect(() => splitArgs(`--model 'sim`)).toThrow(InvalidInputError);
    expect(() => splitArgs(`--model "sim`)).toThrow(/args: unclosed " quote/);
  });
});
