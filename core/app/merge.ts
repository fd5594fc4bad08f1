/**
 * `beton merge`: .beton files of the same fields and page size concatenated into one, pages
 * copied as they are (writer/merge.ts). Remote inputs are read in place with ranged GETs;
 * an s3:// output is streamed as it is written.
 */
import { statSync } from 'node:fs';
import type { StreamTarget } from '../writer/output-file.js';
import { mergeDatasets, type MergeOptions, type MergeReport } from '../writer/merge.js';
import { openRangeClient } from '../remote/open-client.js';
import { isRemoteUrl } from '../remote/url.js';

export type { MergeReport } from '../writer/merge.js';

export interface MergeRequest extends Pick<MergeOptions, 'overwrite' | 'signal' | 'onProgress'> {
  /** An output streamed to object storage: opened once the inputs' total size (the output's, give or take the head) is known. */
  openStream?: (bytes: number) => Promise<StreamTarget>;
}

/** An input's size in bytes: a local file's, or a remote object's (one small ranged GET; s3rver answers bytes=0-0 with the whole object). */
async function inputSize(p: string): Promise<number> {
  if (!isRemoteUrl(p)) return statSync(p).size;
  return (await (await openRangeClient(p)).get(0, 64, null)).size;
}

/** Merges `inputs` into `output` (written under a temporary name, renamed when complete). */
export async function mergeFiles(inputs: readonly string[], output: string, request: MergeRequest): Promise<MergeReport> {
  const { openStream, ...opts } = request;
  const stream = openStream ? await openStream((await Promise.all(inputs.map(inputSize))).reduce((s, n) => s + n, 0)) : undefined;
  return mergeDatasets(inputs, output, { ...(stream ? { stream } : {}), ...opts });
}
