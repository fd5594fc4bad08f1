import { useEffect, useState } from 'react';
import type { PreviewResult } from '../../../core/api/contract.js';
import { call } from '../lib/api.js';
import { Media } from '../screens/dataset/Media.js';

/** Members shown with a thumbnail at most (the rest as ids). */
const MAX_THUMBS = 8;

type Member = PreviewResult['samples'][number];

/** A text value that names a source file ("cats/001.jpg"): what the user recognises a sample by. */
function fileNameOf(s: Member): string | null {
  for (const v of Object.values(s.fields)) {
    if (v.kind === 'text' && /^[^\n]{1,300}\.(jpe?g|png|webp|gif|bmp|tiff?|avif|ppm|pgm|mp4|mkv|webm|mov|avi)"?$/i.test(v.text.trim()))
      return v.text.trim().replace(/^"|"$/g, '');
  }
  return null;
}

/**
 * A group of duplicate samples side by side: each one's thumbnail, id, class and source file
 * name (when the file keeps one), and "labels disagree" when their classes differ, so the
 * group can be judged without opening each sample.
 */
export function DuplicateGroup({
  path,
  ids,
  current,
  open,
  testId,
}: {
  path: string;
  ids: readonly number[];
  /** The sample whose dialog shows the group (not a link). */
  current?: number;
  open(i: number): void;
  testId: string;
}) {
  const [members, setMembers] = useState<Record<number, Member>>({});
  const key = ids.join(',');
  useEffect(() => {
    let live = true;
    setMembers({});
    for (const id of ids.slice(0, MAX_THUMBS)) {
      void call('datasets.preview', { path, start: id, count: 1, thumb: 96 })
        .then((r) => {
          const s = r.samples[0];
          if (live && s && s.index === id) setMembers((m) => ({ ...m, [id]: s }));
        })
        .catch(() => undefined); // the id stays a link
    }
    return () => {
      live = false;
    };
    // key is the ids' content: a new array with the same ids is the same group.
  }, [path, key]);
  const classes = new Set(Object.values(members).map((m) => m.className ?? ''));
  const disagree = classes.size > 1 && Object.keys(members).length === Math.min(ids.length, MAX_THUMBS);
  return (
    <div className="dup-group" data-testid={testId} data-disagree={disagree ? 'true' : undefined}>
      {disagree ? (
        <span className="badge badge-danger" data-testid="dup-disagree">
          labels disagree
        </span>
      ) : null}
      <div className="dup-members">
        {ids.map((id, k) => {
          const m = members[id];
          const image = m ? Object.entries(m.fields).find(([, v]) => v.kind === 'image' || v.kind === 'frames') : undefined;
          const file = m ? fileNameOf(m) : null;
          return (
            <figure key={id} className={`dup-member ${id === current ? 'is-current' : ''}`} data-testid="dup-member">
              {/* The whole member is the link: its picture and its caption. */}
              <button
                type="button"
                className="thumb-open dup-open"
                disabled={id === current}
                onClick={() => open(id)}
                aria-label={`Open sample ${id}`}
              >
                {image && k < MAX_THUMBS ? (
                  <Media name={image[0]} value={image[1]} index={id} />
                ) : (
                  <span className="thumb-noimg">#{id}</span>
                )}
                <span className="dup-caption">
                  <span className="thumb-index">#{id}</span>
                  {m?.className ? <span className="thumb-class">{m.className}</span> : null}
                  {file ? (
                    <span className="dup-file" title={file} data-testid="dup-file">
                      {file}
                    </span>
                  ) : null}
                </span>
              </button>
            </figure>
          );
        })}
      </div>
    </div>
  );
}
