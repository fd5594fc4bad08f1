import type { PreviewValue } from '../../../../core/api/contract.js';

/** A sample's image, or a clip as a filmstrip of evenly spaced frames side by side. */
export function Media({ name, value, index }: { name: string; value: PreviewValue; index: number }) {
  if (value.kind === 'image') {
    return (
      <img
        src={`data:${value.mime};base64,${value.base64}`}
        alt={`${name} of sample ${index}, ${value.width}×${value.height} ${value.mode}`}
        title={`${value.width}×${value.height}, stored ${value.mode}`}
      />
    );
  }
  if (value.kind === 'frames' && value.base64[0]) {
    return (
      <div
        className="filmstrip"
        data-testid="filmstrip"
        title={`${value.base64.length} of the clip's frames, ${value.width}×${value.height}`}
      >
        {value.base64.map((b, k) => (
          <img
            key={k}
            src={`data:${value.mime};base64,${b}`}
            alt={`${name} of sample ${index}, frame ${k + 1} of ${value.base64.length} shown`}
          />
        ))}
      </div>
    );
  }
  return null;
}
