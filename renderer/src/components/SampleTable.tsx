import { useEffect, useRef, useState } from 'react';
import type { PreviewResult } from '../../../core/api/contract.js';
import type { SampleWhere } from '../../../core/api/sample-detail.js';
import { call } from '../lib/api.js';

const ROW = 30;
const HEIGHT = 480;
/** Rows fetched per request (the contract's maximum preview count). */
const BLOCK = 64;

type Row = PreviewResult['samples'][number];

/**
 * Tabular datasets as a table with virtualised rows: only the rows in view (and a few
 * around them) are in the DOM, and they are fetched 64 at a time as they scroll into view,
 * so a million-row file scrolls like a small one. Filters apply (positions count among the
 * matches); a row click opens the sample detail view; `focus` scrolls to and marks a row.
 */
export function SampleTable({
  path,
  total,
  columns,
  label,
  where,
  focus,
  onOpen,
}: {
  path: string;
  total: number;
  columns: readonly string[];
  label: number | null;
  where: SampleWhere | null;
  focus: number | null;
  onOpen(index: number): void;
}) {
  const [top, setTop] = useState(0);
  const [blocks, setBlocks] = useState<Map<number, Row[]>>(new Map());
  const asked = useRef(new Set<number>());
  const box = useRef<HTMLDivElement>(null);
  const key = JSON.stringify([path, label, where]);
  // New file or filters: drop what was fetched.
  useEffect(() => {
    asked.current = new Set();
    setBlocks(new Map());
    box.current?.scrollTo({ top: 0 });
    setTop(0);
  }, [key]);
  const first = Math.max(0, Math.floor(top / ROW) - 10);
  const last = Math.min(total, Math.ceil((top + HEIGHT) / ROW) + 10);
  useEffect(() => {
    for (let b = Math.floor(first / BLOCK); b * BLOCK < last; b++) {
      if (asked.current.has(b)) continue;
      asked.current.add(b);
      void call('datasets.preview', {
        path,
        start: b * BLOCK,
        count: BLOCK,
        thumb: 16,
        ...(label !== null ? { label } : {}),
        ...(where ? { where } : {}),
      }).then(
        (p) => setBlocks((m) => new Map(m).set(b, p.samples)),
        () => asked.current.delete(b),
      );
    }
  }, [first, last, path, label, where, key]);
  useEffect(() => {
    if (focus !== null && box.current) box.current.scrollTo({ top: Math.max(0, focus * ROW - HEIGHT / 2) });
  }, [focus]);
  const rows: Array<{ pos: number; row: Row | undefined }> = [];
  for (let pos = first; pos < last; pos++) rows.push({ pos, row: blocks.get(Math.floor(pos / BLOCK))?.[pos % BLOCK] });
  return (
    <div
      className="vtable"
      ref={box}
      style={{ height: HEIGHT }}
      onScroll={(e) => setTop(e.currentTarget.scrollTop)}
      data-testid="sample-table"
      data-rows={total}
      role="table"
      aria-rowcount={total + 1}
      aria-label="Samples"
    >
      <div className="vtable-head" role="row">
        <span role="columnheader" className="vtable-index">
          #
        </span>
        {columns.map((c) => (
          <span key={c} role="columnheader">
            {c}
          </span>
        ))}
      </div>
      <div style={{ height: total * ROW, position: 'relative' }}>
        {rows.map(({ pos, row }) => (
          <div
            key={pos}
            role="row"
            aria-rowindex={pos + 2}
            className={`vtable-row ${row && row.index === focus ? 'is-focus' : ''}`}
            style={{ transform: `translateY(${pos * ROW}px)`, height: ROW }}
            data-testid="table-row"
            data-index={row?.index}
            tabIndex={row ? 0 : -1}
            onClick={() => row && onOpen(row.index)}
            onKeyDown={(e) => {
              if (row && (e.key === 'Enter' || e.key === ' ')) {
                e.preventDefault();
                onOpen(row.index);
              }
            }}
          >
            <span role="cell" className="vtable-index">
              {row ? row.index : '…'}
            </span>
            {columns.map((c) => {
              const v = row?.fields[c];
              return (
                <span role="cell" key={c} title={v?.kind === 'text' ? v.text : undefined}>
                  {v ? (v.kind === 'text' ? v.text : v.kind) : ''}
                </span>
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
