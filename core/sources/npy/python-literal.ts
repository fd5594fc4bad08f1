import { setOwn } from '../../format/own-keys.js';
/**
 * The tiny subset of Python literal syntax a .npy header uses: a dict of str keys with
 * str, bool, None, int, tuple and list values (`{'descr': '<f4', 'fortran_order': False,
 * 'shape': (3, 4), }`). Written out rather than regex-matched so a structured dtype (a
 * list of tuples) is recognised and refused clearly instead of misread.
 */
export type PyLiteral = string | number | boolean | null | PyLiteral[] | { [key: string]: PyLiteral };

export function parsePythonLiteral(text: string): PyLiteral {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at character ${i} of ${JSON.stringify(text.slice(0, 120))}`);
  };
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const seq = (close: string): PyLiteral[] => {
    const out: PyLiteral[] = [];
    for (;;) {
      ws();
      if (text[i] === close) return (i++, out);
      out.push(value());
      ws();
      if (text[i] === ',') i++;
      else if (text[i] !== close) fail(`expected ',' or '${close}'`);
    }
  };
  const value = (): PyLiteral => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [key: string]: PyLiteral } = {};
      for (;;) {
        ws();
        if (text[i] === '}') return (i++, obj);
        const k = value();
        if (typeof k !== 'string') fail('expected a string key');
        ws();
        if (text[i++] !== ':') fail("expected ':'");
        setOwn(obj, k as string, value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') fail("expected ',' or '}'");
      }
    }
    if (c === '(') return (i++, seq(')'));
    if (c === '[') return (i++, seq(']'));
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) fail('unterminated string');
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    for (const [lit, v] of [
      ['True', true],
      ['False', false],
      ['None', null],
    ] as const) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return v;
      }
    }
    // Python 2 era headers may write longs as "3L".
    const m = /^-?\d+L?/.exec(text.slice(i, i + 40));
    if (!m) return fail('unexpected character');
    i += m[0].length;
    return Number(m[0].replace('L', ''));
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}
