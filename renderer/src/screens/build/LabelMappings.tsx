import type { BuildJob } from '../../stores/builds.js';

/** The category → int mappings the build stored (from its config): which integer each value became. */
export function LabelMappings({ job }: { job: BuildJob }) {
  const maps = (job.config?.fields ?? []).flatMap((f) =>
    f.type === 'int' && f.categories ? [{ name: f.name, categories: f.categories }] : [],
  );
  if (!maps.length) return null;
  return (
    <div data-testid="report-label-maps">
      <h4>Label mappings</h4>
      {maps.map((m) => (
        <p key={m.name} className="muted" data-testid={`label-map-${m.name}`}>
          <strong>{m.name}</strong>:{' '}
          {m.categories
            .slice(0, 50)
            .map((c, i) => `${c} → ${i}`)
            .join(', ')}
          {m.categories.length > 50 ? `, …and ${m.categories.length - 50} more` : ''}
        </p>
      ))}
    </div>
  );
}
