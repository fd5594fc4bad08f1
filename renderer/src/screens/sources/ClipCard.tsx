/** How each video is cut into clips (a video source's form). */
import { TextField } from '../../components/Form.js';
import type { ClipForm } from '../../lib/build-form.js';

export function ClipCard({
  clip,
  errors,
  onChange,
}: {
  clip: ClipForm;
  errors: Record<string, string>;
  onChange(patch: Partial<ClipForm>): void;
}) {
  return (
    <section className="card" data-testid="clip-card">
      <header className="card-head">
        <h3>Clips</h3>
        <span className="card-sub">How each video is cut into samples (decoded with ffmpeg).</span>
      </header>
      <div className="grid-form">
        <TextField
          label="Clip length (frames)"
          value={clip.clipLength}
          onChange={(clipLength) => onChange({ clipLength })}
          error={errors['clip.clipLength']}
          testId="clip-length"
          inputMode="numeric"
          hint="Frames per sample (T)."
        />
        <TextField
          label="Stride (frames)"
          value={clip.stride}
          onChange={(stride) => onChange({ stride })}
          error={errors['clip.stride']}
          testId="clip-stride"
          inputMode="numeric"
          placeholder={`${clip.clipLength || 'clip length'} (back to back)`}
          hint="Frames between clip starts; less than the length overlaps clips."
        />
        <TextField
          label="Frame rate (fps)"
          value={clip.fps}
          onChange={(fps) => onChange({ fps })}
          error={errors['clip.fps']}
          testId="clip-fps"
          inputMode="decimal"
          placeholder="each video's own"
          hint="Resample every video to this rate first."
        />
      </div>
    </section>
  );
}
