import { Fragment } from 'react';

/**
 * Text that may hold markdown inline code (`beton serve`), as hosts and hints write it:
 * the backticked parts become <code>, the rest stays text. Only backticks: the messages
 * come from the host and are never parsed as HTML.
 */
export function InlineMarkdown({ text }: { text: string }) {
  const parts = splitInlineCode(text);
  return <>{parts.map((p, i) => (p.code ? <code key={i}>{p.text}</code> : <Fragment key={i}>{p.text}</Fragment>))}</>;
}

/** "run `a` now" → [run ][a: code][ now]; an unpaired backtick stays as it is. */
export function splitInlineCode(text: string): Array<{ text: string; code: boolean }> {
  const out: Array<{ text: string; code: boolean }> = [];
  const re = /`([^`\n]+)`/g;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > at) out.push({ text: text.slice(at, m.index), code: false });
    out.push({ text: m[1]!, code: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), code: false });
  return out;
}
