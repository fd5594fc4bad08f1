import { dirname } from 'node:path';
import { DEFAULT_CLIP_LENGTH } from '../api/constants.js';
import type { DetectedSource } from '../api/contract.js';
import { proposePageSize } from './page-size.js';
import { detectSourceAndTable, openSource, type DetectOptions } from '../sources/open-source.js';

export interface DetectSourceRequest extends DetectOptions {
  /** An absolute path (a front end resolves and confines it first). */
  path: string;
  /**
   * A folder of videos given without a clip length: propose DEFAULT_CLIP_LENGTH (the app,
   * whose form shows the proposal for the user to edit before building) instead of refusing
   * it (the CLI, which builds at once: a number the user never saw must not shape the file).
   */
  proposeClipLength?: boolean;
}

/**
 * Detects a source and its schema: what `sources.detect` answers, and what `beton build
 * SOURCE` starts from. One function, so the app and the CLI read a path the same way.
 */
export async function detectSource(req: DetectSourceRequest): Promise<DetectedSource> {
  const { path, proposeClipLength, ...opts } = req;
  const detected = await detectSourceAndTable(path, proposeClipLength ? { ...opts, proposedClipLength: DEFAULT_CLIP_LENGTH } : opts);
  const source = detected.config;
  const proposed = proposeClipLength === true && opts.clipLength === undefined && source.type === 'video_folder';
  // Opened from the table detection opened, if any (a CSV is read through at each open to count its rows).
  const opened = await openSource(source, dirname(path), {
    ...(opts.readGuard ? { readGuard: opts.readGuard } : {}),
    table: detected.table,
  });
  const fields = await opened.detectSchema();
  const pageSize = proposePageSize(source.type, opened.sourceBytes?.() ?? null);
  return {
    source,
    fields,
    length: opened.length,
    ...(proposed ? { proposed: { clipLength: DEFAULT_CLIP_LENGTH } } : {}),
    ...(pageSize ? { pageSize } : {}),
  };
}
