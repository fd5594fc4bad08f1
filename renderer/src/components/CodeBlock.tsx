import { useMemo } from 'react';
import { highlight } from '../lib/highlight.js';

/** Highlighted code as text spans (no HTML strings), with line numbers from CSS counters. */
export function CodeBlock({ text, language, testId }: { text: string; language: 'python' | 'json'; testId?: string }) {
  const lines = useMemo(() => {
    const out: Array<Array<{ type: string; text: string }>> = [[]];
    for (const tok of highlight(text, language)) {
      const parts = tok.text.split('\n');
      parts.forEach((part, i) => {
        if (i > 0) out.push([]);
        if (part) out[out.length - 1]!.push({ type: tok.type, text: part });
      });
    }
    return out;
  }, [text, language]);
  return (
    <pre className={`code lang-${language}`} data-testid={testId ?? 'code-block'} tabIndex={0} aria-label={`${language} code`}>
      <code>
        {lines.map((toks, i) => (
          <span className="code-line" key={i}>
            {toks.map((t, j) =>
              t.type === 'plain' ? (
                t.text
              ) : (
                <span key={j} className={`tok-${t.type}`}>
                  {t.text}
                </span>
              ),
            )}
            {'\n'}
          </span>
        ))}
      </code>
    </pre>
  );
}
