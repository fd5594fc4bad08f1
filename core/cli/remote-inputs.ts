import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadFile } from '../remote/download.js';
import { isRemoteUrl } from '../remote/url.js';

/**
 * Inputs a command reads whole (merge): URLs are copied to a temporary folder first, with
 * parallel ranged GETs (remote/download.ts), since every byte is read anyway; local paths
 * pass through. `cleanup` removes the copies.
 */
export async function localInputs(inputs: string[], signal?: AbortSignal): Promise<{ paths: string[]; cleanup: () => Promise<void> }> {
  if (!inputs.some(isRemoteUrl)) return { paths: inputs, cleanup: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'beton-inputs-'));
  const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    const paths: string[] = [];
    for (const [i, p] of inputs.entries()) {
      if (!isRemoteUrl(p)) paths.push(p);
      else {
        const local = join(dir, `${i}-${p.slice(p.lastIndexOf('/') + 1) || 'input.beton'}`);
        await downloadFile(p, local, signal ? { signal } : {});
        paths.push(local);
      }
    }
    return { paths, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
