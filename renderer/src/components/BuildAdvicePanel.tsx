import { FIELD_TYPE } from '../../../core/api/constants.js';
import { useState } from 'react';
import type { BuildConfigInput } from '../../../core/api/build-config.js';
import type { BuildAdvice } from '../../../core/api/contract.js';
import { inAppWords } from '../lib/app-words.js';
import { formatBytes, formatDuration, formatNumber } from '../lib/format.js';
import { useAdviceStore } from '../stores/advice.js';
import { useProfilesStore } from '../stores/profiles.js';
import { Stat, TextField } from './Form.js';
import { QualityCompare } from './QualityCompare.js';
import { ErrorBanner, Loading } from './States.js';
import { usePick } from '../stores/use-pick.js';

/**
 * Advice before building (issue 14, feature 3): the host encodes a seeded sample of the
 * source with the form's settings and says what the build will make. Every number is an
 * estimate and says from how many items.
 */
export function BuildAdvicePanel({
  config,
  onPageSize,
  onSkip,
}: {
  config: BuildConfigInput | null;
  onPageSize(mib: string): void;
  /** Sets the form's "Bad samples" to skip (the unreadable files found). */
  onSkip(): void;
}) {
  const a = usePick(useAdviceStore, 'loading', 'error', 'advice', 'madeFor', 'advise');
  const profileForm = useProfilesStore((p) => p.form);
  // The crop the Profile screen would load with: the loader's output size.
  const [crop, setCrop] = useState(profileForm.decoder === 'simple' ? '' : profileForm.decoderSize);
  const [sample, setSample] = useState('24');
  const stale = a.advice !== null && config !== null && a.madeFor !== JSON.stringify(config);
  const images = config?.fields === undefined || config.fields.some((f) => f.type === FIELD_TYPE.rgbImage);
  const cropN = crop.trim() === '' || !images ? null : Number(crop);
  const sampleN = Number(sample);
  const bad =
    (cropN !== null && !(Number.isInteger(cropN) && cropN >= 8)) || !(Number.isInteger(sampleN) && sampleN >= 1 && sampleN <= 256);
  return (
    <section className="card" data-testid="advice-card" aria-label="Advice before building">
      <header className="card-head">
        <h3>Before you build</h3>
        <span className="card-sub">Estimates from encoding a sample of the source with these settings; nothing is written.</span>
      </header>
      <div className="row-wrap">
        <div className="narrow">
          <TextField
            label="Items to sample"
            value={sample}
            onChange={setSample}
            testId="advice-sample"
            inputMode="numeric"
            hint="1–256, picked at random (seed 0)."
          />
        </div>
        {/* The crop check compares stored images with the loader's crop: no image field, no crop. */}
        {images ? (
          <div className="narrow">
            <TextField
              label="Loader crop (px)"
              value={crop}
              onChange={setCrop}
              testId="advice-crop"
              inputMode="numeric"
              placeholder="none"
              hint="The size the loader decodes to (Profile's crop)."
            />
          </div>
        ) : null}
        <div className="align-end">
          <button
            type="button"
            className="btn"
            data-testid="advise-button"
            disabled={!config || a.loading || bad}
            onClick={() => config && void a.advise(config, { sample: sampleN, loaderSize: cropN })}
          >
            {a.loading ? 'Estimating…' : 'Estimate'}
          </button>
        </div>
      </div>
      {a.loading ? <Loading label="Encoding a sample of the source…" /> : null}
      {a.error ? <ErrorBanner error={a.error} title="No estimate" /> : null}
      {a.advice ? (
        <AdviceView advice={a.advice} stale={stale} onPageSize={onPageSize} onSkip={onSkip} skipping={config?.onError === 'skip'} />
      ) : null}
    </section>
  );
}

function AdviceView({
  advice: v,
  stale,
  onPageSize,
  onSkip,
  skipping,
}: {
  advice: BuildAdvice;
  stale: boolean;
  onPageSize(mib: string): void;
  onSkip(): void;
  skipping: boolean;
}) {
  const e = v.estimate;
  return (
    <div data-testid="advice-result" data-stale={stale ? 'true' : undefined} className={stale ? 'is-stale' : undefined}>
      {stale ? <p className="field-msg field-warning">The settings changed since this estimate; estimate again.</p> : null}
      <div className="stats">
        <Stat
          label="Estimated file size"
          value={e.fileBytes === null ? '— (length unknown)' : `≈ ${formatBytes(e.fileBytes)}`}
          testId="advice-size"
        />
        <Stat
          label="Estimated build time"
          value={e.buildSeconds === null ? '—' : `≈ ${formatDuration(e.buildSeconds * 1000)}`}
          testId="advice-time"
        />
        <Stat label="Per sample" value={`${formatBytes(e.heapBytesPerSample)} · ${e.encodeMsPerSample.toFixed(1)} ms`} />
        <Stat
          label="Sampled"
          value={`${formatNumber(v.sampled)} of ${v.items === null ? '?' : formatNumber(v.items)}`}
          testId="advice-sampled"
        />
      </div>
      <p className="muted" data-testid="advice-note">
        {e.note}
      </p>
      {v.warnings.length ? (
        <ul className="advice-warnings" data-testid="advice-warnings">
          {v.warnings.map((w) => (
            <li key={w} className="field-msg field-warning" data-testid={v.crop?.warning === w ? 'advice-crop-warning' : undefined}>
              {w}
            </li>
          ))}
        </ul>
      ) : null}
      {v.headers ? <HeaderScan headers={v.headers} onSkip={onSkip} skipping={skipping} /> : null}
      {v.pageSizes.length > 1 ? (
        <div>
          <h4>Page size</h4>
          {v.pageSizeAdvice ? (
            <p className="field-msg field-warning" data-testid="advice-page-advice">
              {v.pageSizeAdvice}
            </p>
          ) : null}
          <table className="table compact" data-testid="advice-pages">
            <thead>
              <tr>
                <th scope="col">Page size</th>
                <th scope="col">Pages</th>
                <th scope="col">File size (est.)</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {v.pageSizes.map((o) => (
                <tr key={o.pageSize} data-suggested={o.suggested ? 'true' : undefined}>
                  <th scope="row">{formatBytes(o.pageSize)}</th>
                  <td className="num">{formatNumber(o.pages)}</td>
                  <td className="num">≈ {formatBytes(o.fileBytes)}</td>
                  <td>
                    {o.chosen ? <span className="badge">chosen</span> : null}
                    {o.suggested ? (
                      <button
                        type="button"
                        className="btn btn-small"
                        data-testid="advice-use-page"
                        onClick={() => onPageSize(String(o.pageSize / (1024 * 1024)))}
                      >
                        Use {formatBytes(o.pageSize)}
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {v.quality && v.quality.items.length ? <QualityPreview quality={v.quality} /> : null}
    </div>
  );
}

function QualityPreview({ quality: q }: { quality: NonNullable<BuildAdvice['quality']> }) {
  const [compare, setCompare] = useState<{ item: number; variant: number } | null>(null);
  const shown = compare ? q.items[compare.item] : undefined;
  return (
    <div data-testid="advice-quality">
      {shown && compare ? <QualityCompare item={shown} variant={compare.variant} onClose={() => setCompare(null)} /> : null}
      <h4>
        JPEG quality on {q.items.length} sampled images{' '}
        <span className="muted">
          (field {q.field}, {q.writeMode}
          {q.smartThreshold !== null ? `, smart threshold ${formatNumber(q.smartThreshold)} B` : ''})
        </span>
      </h4>
      {q.smart ? (
        <p className="muted" data-testid="advice-smart">
          With this smart threshold {q.smart.jpg} of {q.smart.jpg + q.smart.raw} sampled images are stored as JPEG and {q.smart.raw} raw
          (JPEG when width × height × 3 &gt; threshold).
        </p>
      ) : null}
      {q.items.map((it, itemIndex) => (
        <div key={it.index} className="advice-quality-row" data-testid="advice-quality-item">
          <div className="muted advice-quality-head">
            #{it.index} · {it.width}×{it.height}
          </div>
          <div className="advice-variants">
            {it.variants.map((vr, variantIndex) => (
              <figure
                key={vr.label}
                className={`advice-variant ${vr.chosen ? 'is-chosen' : ''}`}
                data-testid="advice-variant"
                data-chosen={vr.chosen ? 'true' : undefined}
              >
                {vr.preview ? (
                  <button
                    type="button"
                    className="thumb-open"
                    data-testid="advice-variant-open"
                    title="Compare with the lossless image at 1:1"
                    onClick={() => setCompare({ item: itemIndex, variant: variantIndex })}
                  >
                    <img
                      src={`data:${vr.preview.mime};base64,${vr.preview.base64}`}
                      alt={`sample ${it.index} as ${vr.label}${vr.preview.crop ? ' (1:1 crop of the middle)' : ''}`}
                      width={vr.preview.width}
                      height={vr.preview.height}
                    />
                  </button>
                ) : null}
                <figcaption>
                  <span>{vr.label}</span>
                  <span className="num" data-testid="advice-variant-bytes">
                    {formatBytes(vr.bytes)}
                  </span>
                </figcaption>
              </figure>
            ))}
          </div>
        </div>
      ))}
    </div>
  );
}

/** Every source file's header, read: how many, and the files the build would stop at, with Skip. */
function HeaderScan({ headers: h, onSkip, skipping }: { headers: NonNullable<BuildAdvice['headers']>; onSkip(): void; skipping: boolean }) {
  const all = h.checked === h.total;
  return (
    <div data-testid="advice-headers" data-unreadable={h.unreadableCount}>
      <p className={h.unreadableCount ? 'field-msg field-warning' : 'muted'}>
        {all
          ? `Read every source file's header (${formatNumber(h.checked)})`
          : `Read the headers of the first ${formatNumber(h.checked)} of ${formatNumber(h.total)} source files`}
        {h.unreadableCount
          ? `: ${formatNumber(h.unreadableCount)} cannot be read.`
          : ': all readable (damage past a header shows only when the build decodes the file).'}
      </p>
      {h.unreadableCount ? (
        <>
          <ul className="skipped" data-testid="advice-unreadable">
            {h.unreadable.map((u) => (
              <li key={`${u.index}:${u.source}`}>
                <code>{u.source || `#${u.index}`}</code> {inAppWords(u.reason)}
              </li>
            ))}
            {h.unreadableCount > h.unreadable.length ? (
              <li className="muted">…and {h.unreadableCount - h.unreadable.length} more</li>
            ) : null}
          </ul>
          <div className="actions">
            {skipping ? (
              <span className="muted" data-testid="advice-skipping">
                Bad samples: skipped and listed in the report.
              </span>
            ) : (
              <button type="button" className="btn" data-testid="advice-skip" onClick={onSkip}>
                Skip them when building
              </button>
            )}
          </div>
        </>
      ) : null}
    </div>
  );
}
