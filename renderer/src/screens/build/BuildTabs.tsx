import type { BuildJob } from '../../stores/builds.js';
import { STATUS_LABEL } from './status-label.js';

/** One tab per build of this session (newest first), when there is more than one. */
export function BuildTabs({
  order,
  currentId,
  statuses,
  select,
}: {
  order: string[];
  currentId: string | null;
  statuses: Array<BuildJob['status']>;
  select(id: string): void;
}) {
  if (order.length <= 1) return null;
  return (
    <div className="tabs" role="tablist" aria-label="Builds">
      {order.map((id, i) => (
        <button
          key={id}
          type="button"
          role="tab"
          className={`tab ${id === currentId ? 'is-active' : ''}`}
          aria-selected={id === currentId}
          tabIndex={id === currentId ? 0 : -1}
          onClick={() => select(id)}
        >
          Build {order.length - i} · {STATUS_LABEL[statuses[i]!]}
        </button>
      ))}
    </div>
  );
}
