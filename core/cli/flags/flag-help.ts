import type { Flag, FlagTable } from './flag-table.js';

/** `  -o, --output FILE`: a flag's head in the help. */
function head(name: string, f: Flag): string {
  const arg = f.kind === 'switch' ? '' : ` ${f.arg}`;
  return `  ${f.short ? `-${f.short}, ` : ''}--${name}${arg}${f.kind === 'repeated' ? ' ...' : ''}`;
}

/**
 * The table's help lines, one flag after another in the table's order: the head, then the
 * help aligned at `column` (continuation lines under it; a head that reaches the column puts
 * its help on the next line). The column defaults to two past the longest head, at most 31.
 * Every flag a command takes is listed, because the list is the table.
 */
export function flagHelp(table: FlagTable, column?: number): string {
  const col = column ?? Math.min(31, Math.max(...Object.entries(table).map(([name, f]) => head(name, f).length)) + 2);
  return Object.entries(table)
    .flatMap(([name, f]) => {
      const h = head(name, f);
      const pad = ' '.repeat(col);
      const [first = '', ...rest] = f.help;
      const top = h.length + 1 < col ? [h.padEnd(col) + first] : [h, pad + first];
      return [...top, ...rest.map((l) => pad + l)];
    })
    .join('\n');
}
