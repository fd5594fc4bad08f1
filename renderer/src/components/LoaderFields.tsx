/**
 * Inputs the Export screen's loader settings and the Profile screen's sweep both show: the
 * dataset (a local .beton or a URL) and the image decoder with its crop size. One place, so
 * the two screens name and check them the same way.
 */
import { PathPicker } from './FileBrowser.js';
import { SelectField, TextField } from './Form.js';
import { DECODER_OPTIONS, type DecoderKind } from '../lib/profile-form.js';
import { PATH_OR_URL_PLACEHOLDER } from '../lib/remote-url.js';

export function DatasetFileField(p: { value: string; onChange(file: string): void; error?: string | undefined; testId: string }) {
  return (
    <div className="span-2">
      <PathPicker
        label=".beton file"
        value={p.value}
        onChange={p.onChange}
        pick="file"
        accept={['beton']}
        testId={p.testId}
        placeholder={PATH_OR_URL_PLACEHOLDER}
        error={p.error}
      />
    </div>
  );
}

export function DecoderFields(p: {
  decoder: DecoderKind;
  size: string;
  sizeError?: string | undefined;
  onDecoder(decoder: DecoderKind): void;
  onSize(size: string): void;
  decoderTestId?: string;
}) {
  return (
    <>
      <SelectField<DecoderKind>
        label="Image decoder"
        value={p.decoder}
        onChange={p.onDecoder}
        options={DECODER_OPTIONS}
        {...(p.decoderTestId ? { testId: p.decoderTestId } : {})}
      />
      <TextField
        label="Crop size (px)"
        value={p.size}
        onChange={p.onSize}
        error={p.sizeError}
        disabled={p.decoder === 'simple'}
        inputMode="numeric"
      />
    </>
  );
}
