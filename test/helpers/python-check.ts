import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * FFCV 1.0.2's public names, by module: what generated code may import from `ffcv`.
 * (ffcv.fields.base / pipeline.* are the documented extension points for custom fields.)
 */
export const FFCV_PUBLIC: Record<string, readonly string[]> = {
  'ffcv.writer': ['DatasetWriter'],
  'ffcv.loader': ['Loader', 'OrderOption'],
  'ffcv.fields': ['Field', 'RGBImageField', 'IntField', 'FloatField', 'BytesField', 'JSONField', 'NDArrayField', 'TorchTensorField'],
  'ffcv.fields.base': ['Field', 'ARG_TYPE'],
  'ffcv.fields.decoders': [
    'SimpleRGBImageDecoder',
    'RandomResizedCropRGBImageDecoder',
    'CenterCropRGBImageDecoder',
    'IntDecoder',
    'FloatDecoder',
    'NDArrayDecoder',
    'BytesDecoder',
  ],
  'ffcv.transforms': [
    'ToTensor',
    'ToDevice',
    'ToTorchImage',
    'Convert',
    'Squeeze',
    'View',
    'RandomResizedCrop',
    'RandomHorizontalFlip',
    'Cutout',
    'RandomTranslate',
    'Poison',
    'ReplaceLabel',
    'ModuleWrapper',
    'ImageMixup',
    'LabelMixup',
    'MixupToOneHot',
    'NormalizeImage',
    'RandomBrightness',
    'RandomContrast',
    'RandomSaturation',
  ],
  'ffcv.pipeline.operation': ['Operation'],
  'ffcv.pipeline.allocation_query': ['AllocationQuery'],
  'ffcv.pipeline.state': ['State'],
  'ffcv.pipeline.compiler': ['Compiler'],
  // The Python face of FFCV's C library (the extension itself is the private ffcv._libffcv):
  // the numba-callable JPEG decode, copy and INTER_AREA crop-resize its own image, bytes and
  // ndarray decoders compile with Compiler.compile, and what FFCV's tests call directly.
  'ffcv.libffcv': ['imdecode', 'memcpy', 'resize_crop'],
};

const CHECK = `
import ast, json, py_compile, sys
path, allowed = sys.argv[1], json.loads(sys.argv[2])
try:
    py_compile.compile(path, doraise=True)
except py_compile.PyCompileError as e:
    print(e.msg, file=sys.stderr); sys.exit(1)
bad = []
for node in ast.walk(ast.parse(open(path).read())):
    if isinstance(node, ast.Import):
        bad += [a.name for a in node.names if a.name.split('.')[0] == 'ffcv']
    elif isinstance(node, ast.ImportFrom) and (node.module or '').split('.')[0] == 'ffcv':
        ok = allowed.get(node.module, [])
        bad += [node.module + '.' + a.name for a in node.names if a.name not in ok]
if bad:
    print('not public FFCV names: ' + ', '.join(bad), file=sys.stderr); sys.exit(1)
`;

/**
 * The interpreter `python3` on PATH runs, resolved once: a version manager's shim (pyenv)
 * costs half a second a start, more than the check itself. null when there is no python3.
 */
let python3: string | null | undefined;
function resolvedPython3(): string | null {
  if (python3 === undefined) {
    const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
    python3 = r.error || r.status !== 0 ? null : r.stdout.trim() || 'python3';
  }
  return python3;
}

/**
 * 'ok' when `code` compiles as Python (`python3 -m py_compile`) and imports from `ffcv`
 * only FFCV's public names; else python's message. null when there is no python3.
 */
export function checkPython(code: string): string | null {
  const python = resolvedPython3();
  if (python === null) return null;
  const dir = mkdtempSync(join(tmpdir(), 'beton-py-'));
  try {
    const f = join(dir, 'generated.py');
    writeFileSync(f, code);
    const r = spawnSync(python, ['-c', CHECK, f, JSON.stringify(FFCV_PUBLIC)], { encoding: 'utf8' });
    if (r.error) return null;
    return r.status === 0 ? 'ok' : r.stderr.trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
