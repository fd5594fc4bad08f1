/**
 * Python's `json.dumps` with default arguments, byte for byte: ", " and ": " separators,
 * ensure_ascii (\uXXXX escapes, surrogate pairs), Python float repr ("1.0", "1e-05",
 * "1e+100"), NaN/Infinity/-Infinity. JSONField stores this text, so matching it makes
 * our files byte-identical to FFCV's.
 *
 * JS has one number type; Python has int and float. A JS number that is an integer in the
 * safe range is written as a Python int; wrap it in `PyFloat` to force float formatting
 * ("1.0"). Parsing with `parsePythonJson(text, { keepFloats: true })` returns such wrappers,
 * so parse → dumps reproduces the text exactly.
 */
export class PyFloat {
  /** Named so the marker survives structured cloning to worker threads (which drops classes). */
  readonly __pyfloat__: number;
  constructor(value: number) {
    this.__pyfloat__ = value;
  }
  get value(): number {
    return this.__pyfloat__;
  }
  toJSON(): number {
    return this.__pyfloat__;
  }
}

function isPyFloat(v: object): v is PyFloat {
  return v instanceof PyFloat || (typeof (v as PyFloat).__pyfloat__ === 'number' && Object.keys(v).length === 1);
}

export function pythonJsonDumps(value: unknown): string {
  const out: string[] = [];
  write(value, out, new Set());
  return out.join('');
}

function write(v: unknown, out: string[], seen: Set<object>): void {
  if (v === null) return void out.push('null');
  if (v === true) return void out.push('true');
  if (v === false) return void out.push('false');
  if (typeof v === 'string') return void out.push(quote(v));
  if (typeof v === 'bigint') return void out.push(v.toString());
  if (typeof v === 'object' && isPyFloat(v)) return void out.push(floatRepr(v.__pyfloat__));
  if (typeof v === 'number') {
    out.push(Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER + 1 && !Object.is(v, -0) ? String(v) : floatRepr(v));
    return;
  }
  if (typeof v !== 'object' || v === undefined) {
    throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
  }
  if (seen.has(v)) throw new TypeError('Circular reference detected');
  seen.add(v);
  if (Array.isArray(v)) {
    out.push('[');
    v.forEach((x, i) => {
      if (i) out.push(', ');
      write(x, out, seen);
    });
    out.push(']');
  } else {
    out.push('{');
    let first = true;
    for (const [k, x] of Object.entries(v)) {
      if (!first) out.push(', ');
      first = false;
      out.push(quote(k), ': ');
      write(x, out, seen);
    }
    out.push('}');
  }
  seen.delete(v);
}

const SHORT: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function quote(s: string): string {
  let r = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const c = s.charCodeAt(i);
    const short = SHORT[ch];
    if (short) r += short;
    else if (c >= 0x20 && c <= 0x7e) r += ch;
    else r += '\\u' + c.toString(16).padStart(4, '0');
  }
  return r + '"';
}

/** A JSON number literal at lastIndex (sticky). */
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/** Python's repr(float): shortest round-trip digits, scientific when exp < -4 or >= 16. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expStr] = x.toExponential().split('e') as [string, string];
  const exp = Number(expStr);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let body: string;
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else if (exp < 0) {
    body = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length > exp + 1) {
    body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    body = `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  }
  return neg ? `-${body}` : body;
}

/**
 * Parses JSON as Python's json.loads does (accepting NaN, Infinity, -Infinity).
 * With keepFloats, numbers written with a '.' or exponent become PyFloat, and integers
 * beyond 2^53 become bigint, so the value round-trips through pythonJsonDumps.
 */
export function parsePythonJson(text: string, opts: { keepFloats?: boolean } = {}): unknown {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at character ${i}: ${what}`);
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') return (i++, obj);
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a string key');
        const k = str();
        ws();
        if (text[i++] !== ':') fail("expected ':'");
        const v = value();
        // "__proto__" is an ordinary key to Python; assigning it would set the prototype and lose the entry.
        if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[k] = v;
        ws();
        const d = text[i++];
        if (d === '}') return obj;
        if (d !== ',') fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') return (i++, arr);
      for (;;) {
        arr.push(value());
        ws();
        const d = text[i++];
        if (d === ']') return arr;
        if (d !== ',') fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    for (const [lit, v] of [
      ['null', null],
      ['true', true],
      ['false', false],
      ['NaN', NaN],
      ['Infinity', Infinity],
      ['-Infinity', -Infinity],
    ] as const) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return opts.keepFloats && typeof v === 'number' ? new PyFloat(v) : v;
      }
    }
    // Sticky, on the whole text: a number literal may be any length (a 400-digit integer is valid JSON).
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('unexpected character');
    i += m[0].length;
    const isFloat = m[2] !== undefined || m[3] !== undefined;
    if (!isFloat) {
      const n = Number(m[0]);
      if (opts.keepFloats && !Number.isSafeInteger(n)) return BigInt(m[0]);
      return n;
    }
    return opts.keepFloats ? new PyFloat(Number(m[0])) : Number(m[0]);
  };
  const str = (): string => {
    i++;
    let s = '';
    for (;;) {
      const c = text[i++];
      if (c === undefined) fail('unterminated string');
      if (c === '"') return s;
      if (c === '\\') {
        const e = text[i++];
        if (e === 'u') {
          s += String.fromCharCode(parseInt(text.slice(i, i + 4), 16));
          i += 4;
        } else {
          const map: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
          const r = e === undefined ? undefined : map[e];
          if (r === undefined) fail('bad escape');
          s += r;
        }
      } else s += c;
    }
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}
