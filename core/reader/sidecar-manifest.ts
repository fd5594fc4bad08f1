import { DatasetManifest, MANIFEST_FORMAT, MANIFEST_VERSION, manifestPathFor, type ManifestStatus } from '../api/dataset-manifest.js';
import { readRegularText } from '../native/regular-file.js';
import { datasetContentSha256 } from './content-hash.js';

/**
 * The manifest beside a .beton, if it is there and describes this file. Never throws for the
 * manifest's sake: a missing one is normal (FFCV's files, copies made without it), a corrupt
 * or stale one is reported with a note and otherwise ignored, so the dataset still opens and
 * shows label numbers. `contentSha256` saves hashing the allocation table again when the
 * caller has it.
 */
export function readSidecarManifest(betonPath: string, contentSha256?: string): ManifestStatus {
  const path = manifestPathFor(betonPath);
  let text: string;
  try {
    // Through the one opener: a FIFO is refused rather than waited on, and under beton serve a
    // manifest that is (or became) a link to outside the served folders is not read.
    text = readRegularText(path, 'dataset manifest');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing', path };
    return { status: 'corrupt', path, note: `cannot read ${path}: ${(e as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { status: 'corrupt', path, note: `${path} is not JSON (${(e as Error).message}); class names are not shown` };
  }
  const r = DatasetManifest.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    return {
      status: 'corrupt',
      path,
      note: `${path} is not a dataset manifest (${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'bad shape'}); class names are not shown`,
    };
  }
  const m = r.data;
  if (m.format !== MANIFEST_FORMAT || m.version > MANIFEST_VERSION) {
    return {
      status: 'corrupt',
      path,
      note: `${path} is manifest version ${m.version}, newer than this reader (${MANIFEST_VERSION}); update beton-studio to read it`,
    };
  }
  const actual = contentSha256 ?? datasetContentSha256(betonPath);
  if (actual !== m.beton.contentSha256) {
    return {
      status: 'stale',
      path,
      note: `${path} describes another build of this file (content ${m.beton.contentSha256.slice(0, 12)}…, the file is ${actual.slice(0, 12)}…): it is ignored; rebuild to get class names back`,
    };
  }
  return { status: 'ok', path, manifest: m };
}
