import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBuildConfig } from '../../core/api/build-config.js';
import type { DetectedSource, PreviewResult } from '../../core/api/contract.js';
import { BetonService } from '../../core/services/beton-service.js';
import { buildDataset } from '../../core/app/build.js';
import { requires } from '../helpers/requires.js';
import { writeVideoFolder } from '../helpers/videos.js';

const hasFfmpeg = requires('ffmpeg', 'apt-get install -y ffmpeg', spawnSync('ffmpeg', ['-version']).status === 0);
const dir = mkdtempSync(join(tmpdir(), 'beton-video-app-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasFfmpeg)('the app with a video folder', () => {
  it('detects a video folder as clips and previews a clip as a filmstrip', async () => {
    const root = join(dir, 'videos');
    writeVideoFolder(root, { a: 'red', b: 'blue' });
    const service = new BetonService({ roots: [dir], dbPath: join(dir, 'runs.sqlite'), host: 'server' });
    try {
      const det = await service.call('sources.detect', { path: root, clipLength: 8 });
      expect(det.ok, JSON.stringify(det)).toBe(true);
      const d = (det as { value: DetectedSource }).value;
      expect(d.source.type).toBe('video_folder');
      expect(d.fields.map((f) => f.type)).toContain('video_clip');
      const cfg = parseBuildConfig({ source: d.source, output: join(dir, 'clips.beton'), fields: d.fields, numWorkers: 1 });
      if (!cfg.ok) throw new Error(cfg.errors.join('; '));
      const report = await buildDataset(cfg.value);
      expect(report.numSamples).toBe(4); // 20 frames per video → 2 clips of 8 each
      const prev = await service.call('datasets.preview', { path: report.path, count: 2 });
      const p = (prev as { value: PreviewResult }).value;
      const clipField = d.fields.find((f) => f.type === 'video_clip')!.name;
      const v = p.samples[0]!.fields[clipField]!;
      expect(v.kind).toBe('frames');
      if (v.kind === 'frames') expect(v.base64.length).toBe(8);
    } finally {
      service.close();
    }
  });
});
