// The CLI flag kit (core/cli/flags/): typed parsers, one table per command, the help made
// from it, and one wording for a bad value. Before it, seven integer parsers were written by
// hand in core/cli, each command checked its values its own way and said so in its own words
// ("--orders: unknown order", "--port expects 0..65535", "--seconds expects a positive number").
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../core/cli/command-table.js';
import { BadValueError, readFlag } from '../../core/cli/flags/bad-value.js';
import { flagHelp } from '../../core/cli/flags/flag-help.js';
import {
  defaultedFlag,
  goesWith,
  parseFlags,
  repeatedFlag,
  switchFlag,
  valueFlag,
  type FlagTable,
} from '../../core/cli/flags/flag-table.js';
import { decimal, duration, integer, listOf, madeBy, matching, oneOf, orWord, path, size, text } from '../../core/cli/flags/parsers.js';
import type { ValueParser } from '../../core/cli/flags/value-parser.js';
import { UsageError } from '../../core/cli/usage-error.js';
import { cliInProcess as cli } from '../helpers/cli-in-process.js';

/** The message readFlag throws for TEXT, or the value. */
function read<T>(parser: ValueParser<T>, t: string): T | string {
  try {
    return readFlag('x', parser, t);
  } catch (e) {
    expect(e).toBeInstanceOf(BadValueError);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as BadValueError).code).toBe('BAD_VALUE');
    return (e as Error).message;
  }
}

describe('the typed parsers', () => {
  it('integer: whole numbers within the bounds, nothing else', () => {
    const p = integer({ min: 0, max: 256 });
    expect(read(p, '0')).toBe(0);
    expect(read(p, '256')).toBe(256);
    for (const bad of ['257', '-1', '2.5', '', ' 8', '1e2', '0x10', 'many'])
      expect(read(p, bad)).toBe(`--x expects a whole number from 0 to 256, got "${bad}"`);
    expect(read(integer({ min: 1 }), '0')).toBe('--x expects a whole number of at least 1, got "0"');
    expect(read(integer(), '-7')).toBe(-7);
    expect(read(integer(), '9007199254740993')).toMatch(/expects a whole number, got/);
  });

  it('decimal: a number within bounds, or above a bound', () => {
    expect(read(decimal({ min: 0, max: 1 }), '0.25')).toBe(0.25);
    expect(read(decimal({ min: 0, max: 1 }), '1.5')).toBe('--x expects a number from 0 to 1, got "1.5"');
    expect(read(decimal({ above: 0 }), '0')).toBe('--x expects a number above 0, got "0"');
    expect(read(decimal(), 'NaN')).toBe('--x expects a number, got "NaN"');
  });

  it('size: bytes, or a binary unit', () => {
    const p = size({ min: 1 });
    expect(read(p, '2097152')).toBe(2097152);
    expect(read(p, '8MiB')).toBe(8 * 2 ** 20);
    expect(read(p, '20 GiB')).toBe(20 * 2 ** 30);
    expect(read(p, '1.5KiB')).toBe(1536);
    expect(read(p, '0')).toMatch(/^--x expects a size in bytes of at least 1 \(e\.g\. 8388608 or 8MiB\), got "0"$/);
    expect(read(p, '8MB')).toMatch(/got "8MB"$/);
    expect(read(p, '0.5')).toMatch(/got "0.5"$/);
  });

  it('duration: seconds above 0, with an optional unit', () => {
    const p = duration();
    expect(read(p, '3')).toBe(3);
    expect(read(p, '1.5')).toBe(1.5);
    expect(read(p, '500ms')).toBe(0.5);
    expect(read(p, '2m')).toBe(120);
    expect(read(p, '0')).toBe('--x expects a duration in seconds above 0 (e.g. 30, 1.5, 2m), got "0"');
    expect(read(p, 'soon')).toMatch(/got "soon"$/);
  });

  it('oneOf: the words, and a did-you-mean for a near miss', () => {
    const p = oneOf(['sequential', 'random', 'quasi_random'] as const);
    expect(read(p, 'random')).toBe('random');
    expect(read(p, 'radnom')).toBe('--x expects sequential, random or quasi_random, got "radnom" (did you mean random?)');
    expect(read(p, 'shuffled')).toBe('--x expects sequential, random or quasi_random, got "shuffled"');
  });

  it('listOf: comma-separated values; the bad item is the one named', () => {
    const p = listOf(integer({ min: 1 }));
    expect(read(p, '1,2, 4')).toEqual([1, 2, 4]);
    expect(read(p, '1,0,4')).toBe('--x expects a whole number of at least 1 (comma-separated for several), got "0"');
    expect(read(p, '1,,4')).toMatch(/got ""$/);
    expect(read(listOf(oneOf(['beton', 'ffcv', 'torch'] as const)), 'beton,fcv')).toMatch(/got "fcv" \(did you mean ffcv\?\)$/);
  });

  it('orWord, path, text, matching, madeBy', () => {
    const res = orWord(integer({ min: 1 }), 'none', null);
    expect(read(res, 'none')).toBeNull();
    expect(read(res, '512')).toBe(512);
    expect(read(res, 'all')).toBe('--x expects a whole number of at least 1 or none, got "all"');
    expect(read(path(), '')).toBe('--x expects a path, got ""');
    expect(read(path(), 'a b')).toBe('a b');
    expect(read(text(), '')).toBe('');
    expect(read(matching(/^k\d$/, 'k and a digit'), 'k10')).toBe('--x expects k and a digit, got "k10"');
    const json = madeBy((t) => JSON.parse(t) as unknown, 'JSON');
    expect(read(json, '[1]')).toEqual([1]);
    expect(read(json, '{')).toBe('--x expects JSON, got "{"');
    const why = madeBy(
      (t) => JSON.parse(t) as unknown,
      'JSON',
      () => 'unfinished',
    );
    expect(read(why, '{')).toBe('--x expects JSON, got "{": unfinished');
  });
});

const TABLE = {
  output: valueFlag('FILE', path(), 'the output', 'o'),
  workers: valueFlag('N', integer({ min: 1 }), ['worker threads', '(default: the cores)']),
  port: defaultedFlag('N', integer({ min: 0, max: 65535 }), 5780, 'the port'),
  host: repeatedFlag('NAME', text(), 'a host, repeatable'),
  json: switchFlag('JSON output'),
  pretty: goesWith(switchFlag('indented JSON'), 'json'),
} satisfies FlagTable;

describe('a table', () => {
  it('parses argv into typed values: defaults, repeats, switches, shorts', () => {
    const { values, positionals } = parseFlags(['a', '-o', 'x.beton', '--workers', '4', '--host', 'h1', '--host=h2', 'b'], TABLE);
    expect(positionals).toEqual(['a', 'b']);
    expect(values).toEqual({ output: 'x.beton', workers: 4, port: 5780, host: ['h1', 'h2'], json: undefined, pretty: undefined });
    expect(parseFlags(['--json', '--pretty'], TABLE).values).toMatchObject({ json: true, pretty: true });
    expect(() => parseFlags(['--pretty'], TABLE)).toThrow('--pretty goes with --json');
    const n: number = values.port; // typed: a defaulted flag is never undefined
    expect(n).toBe(5780);
  });

  it('a bad value is the one wording; an unknown flag is parseArgs’ error (main words it)', () => {
    expect(() => parseFlags(['--workers', 'all'], TABLE)).toThrow('--workers expects a whole number of at least 1, got "all"');
    expect(() => parseFlags(['--port=70000'], TABLE)).toThrow('--port expects a whole number from 0 to 65535, got "70000"');
    let unknown: unknown;
    try {
      parseFlags(['--bogus'], TABLE);
    } catch (e) {
      unknown = e;
    }
    expect((unknown as { code?: string }).code).toBe('ERR_PARSE_ARGS_UNKNOWN_OPTION');
  });

  it('makes the help: every flag, its placeholder, continuation lines aligned', () => {
    expect(flagHelp(TABLE)).toBe(
      [
        '  -o, --output FILE  the output',
        '  --workers N        worker threads',
        '                     (default: the cores)',
        '  --port N           the port',
        '  --host NAME ...    a host, repeatable',
        '  --json             JSON output',
        '  --pretty           indented JSON',
      ].join('\n'),
    );
  });
});

/** Texts one of which each typed parser refuses (a text() flag refuses none and is skipped). */
const PROBES = ['', 'zz!', '0', '-1', 'x:y:z'];

describe('every command', () => {
  it('lists every flag of its table in its --help', async () => {
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const c = await entry.load();
      const r = await cli(name, '--help');
      expect(r.code, name).toBe(0);
      for (const [flag, f] of Object.entries(c.flags)) {
        expect(r.out, `beton ${name} --help lists --${flag}`).toMatch(new RegExp(`^ +(-${f.short ?? '_'}, )?--${flag}\\b`, 'm'));
      }
    }
  });

  it('answers a bad value of each typed flag in the one wording, exit 2', async () => {
    let checked = 0;
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const c = await entry.load();
      for (const [flag, f] of Object.entries(c.flags)) {
        if (f.kind === 'switch') continue;
        const probe = PROBES.find((t) => !f.parser.read(t).ok);
        if (probe === undefined) continue;
        const r = await cli(name, `--${flag}=${probe}`);
        expect(r.code, `beton ${name} --${flag}=${probe}: ${r.err}`).toBe(2);
        expect(r.err).toMatch(new RegExp(`^beton ${name}: --${flag} expects .+, got "`));
        expect(r.err).toContain(`, got "${probe}"`);
        checked++;
      }
    }
    // build alone has over 20 typed flags: the loop reached the tables.
    expect(checked).toBeGreaterThan(50);
  });

  it('refuses a flag given without the flag it goes with (the table says which)', async () => {
    let checked = 0;
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const c = await entry.load();
      for (const [flag, f] of Object.entries(c.flags)) {
        if (f.with === undefined) continue;
        const good = f.kind === 'switch' ? undefined : ['8', '1', 'x', '(?<ips>\\d+)'].find((t) => f.parser.read(t).ok);
        const r = await cli(name, good === undefined ? `--${flag}` : `--${flag}=${good}`);
        expect(r.code, `beton ${name} --${flag}: ${r.err}`).toBe(2);
        expect(r.err).toMatch(new RegExp(`^beton ${name}: --${flag} goes with --${f.with}\n`));
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });

  it('answers an unknown flag with the did-you-mean line, exit 2', async () => {
    for (const name of Object.keys(COMMANDS)) {
      const r = await cli(name, '--jsno');
      expect(r.code, name).toBe(2);
      expect(r.err).toMatch(new RegExp(`^beton ${name}: unknown option --jsno`));
    }
  });
});
