/**
 * A tiny syntax highlighter for the Export screen: Python and JSON into tokens. The UI
 * renders tokens as text nodes in spans (never HTML strings), so code cannot inject markup.
 * Concatenating the tokens' text gives back the input exactly.
 */
export type TokenType =
  'keyword' | 'builtin' | 'literal' | 'string' | 'number' | 'comment' | 'decorator' | 'key' | 'punct' | 'function' | 'plain';

export interface Token {
  type: TokenType;
  text: string;
}

const PY_KEYWORDS = new Set([
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
  'match',
  'case',
]);
const PY_LITERALS = new Set(['True', 'False', 'None']);
const PY_BUILTINS = new Set([
  'print',
  'range',
  'len',
  'int',
  'float',
  'str',
  'list',
  'dict',
  'tuple',
  'set',
  'bool',
  'open',
  'enumerate',
  'zip',
  'min',
  'max',
  'sum',
  'isinstance',
  'super',
  'self',
  '__name__',
]);

/** Appends, merging with the previous token of the same type (fewer spans). */
function push(out: Token[], type: TokenType, text: string): void {
  if (!text) return;
  const last = out[out.length - 1];
  if (last && last.type === type) last.text += text;
  else out.push({ type, text });
}

const PY_NUMBER = /^(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?j?)/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;

/** The end index of a Python string starting at `i` (after any prefix), handling triple quotes and escapes. */
function pyStringEnd(src: string, i: number): number {
  const q = src[i]!;
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < src.length) {
    const c = src[j]!;
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (!triple && c === '\n') return j; // an unterminated one-line string ends at the line
    if (src.startsWith(close, j)) return j + close.length;
    j++;
  }
  return src.length;
}

export function highlightPython(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let lineStart = true;
  while (i < src.length) {
    const c = src[i]!;
    const rest = src.slice(i);
    if (c === '#') {
      const end = src.indexOf('\n', i);
      const j = end < 0 ? src.length : end;
      push(out, 'comment', src.slice(i, j));
      i = j;
      continue;
    }
    if (c === '\n') {
      push(out, 'plain', c);
      lineStart = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      push(out, 'plain', c);
      i++;
      continue;
    }
    if (c === '@' && lineStart) {
      const m = /^@[A-Za-z_][\w.]*/.exec(rest);
      if (m) {
        push(out, 'decorator', m[0]);
        i += m[0].length;
        lineStart = false;
        continue;
      }
    }
    lineStart = false;
    // Strings, with optional prefixes (r, b, f, rb, …).
    const pre = /^([rRbBuUfF]{1,2})?(['"])/.exec(rest);
    if (pre) {
      const start = i + (pre[1]?.length ?? 0);
      const end = pyStringEnd(src, start);
      push(out, 'string', src.slice(i, end));
      i = end;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = PY_NUMBER.exec(rest);
      if (m && m[0]) {
        push(out, 'number', m[0]);
        i += m[0].length;
        continue;
      }
    }
    const id = IDENT.exec(rest);
    if (id) {
      const w = id[0];
      const after = src.slice(i + w.length).match(/^\s*\(/);
      const type: TokenType = PY_KEYWORDS.has(w)
        ? 'keyword'
        : PY_LITERALS.has(w)
          ? 'literal'
          : PY_BUILTINS.has(w)
            ? 'builtin'
            : after
              ? 'function'
              : 'plain';
      // Keep identifiers separate from neighbours of the same type only for typed words.
      if (type === 'plain') push(out, 'plain', w);
      else out.push({ type, text: w });
      i += w.length;
      continue;
    }
    push(out, /[()[\]{},:.=+\-*/%<>!&|^~]/.test(c) ? 'punct' : 'plain', c);
    i++;
  }
  return out;
}

export function highlightJson(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"' && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      j = Math.min(src.length, j + 1);
      const text = src.slice(i, j);
      const isKey = /^\s*:/.test(src.slice(j));
      out.push({ type: isKey ? 'key' : 'string', text });
      i = j;
      continue;
    }
    const num = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(src.slice(i));
    if ((c === '-' || /[0-9]/.test(c)) && num) {
      push(out, 'number', num[0]);
      i += num[0].length;
      continue;
    }
    const lit = /^(true|false|null)\b/.exec(src.slice(i));
    if (lit) {
      out.push({ type: 'literal', text: lit[1]! });
      i += lit[1]!.length;
      continue;
    }
    push(out, /[{}[\],:]/.test(c) ? 'punct' : 'plain', c);
    i++;
  }
  return out;
}

export function highlight(src: string, language: 'python' | 'json'): Token[] {
  return language === 'json' ? highlightJson(src) : highlightPython(src);
}
