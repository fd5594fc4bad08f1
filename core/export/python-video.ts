import { py } from '../pipeline/python-code.js';
/** Lines describing a video source to FFCV users (FFCV has no video reader). */
export function videoSourcePy(
  src: { type: 'video_folder' | 'video_list'; path: string; clipLength: number; stride?: number | undefined; fps: number | null },
  fieldNames: readonly string[],
): string[] {
  const stride = src.stride ?? src.clipLength;
  return [
    `# Source ${src.type} ${py(src.path)}: FFCV has no video reader. Provide an indexed dataset of clips`,
    `# (${src.clipLength} frames each, starts ${stride} frames apart${src.fps ? `, resampled to ${src.fps} fps` : ''}) returning one tuple per clip,`,
    `# in this field order: (${fieldNames.join(', ')}); the clip as a (T, H, W, 3) uint8 RGB array (e.g. decoded with`,
    '# torchvision.io.read_video or PyAV). Beton Studio builds the same file with: beton build --config build.json',
    'dataset = ...  # e.g. a torch.utils.data.Dataset',
  ];
}
