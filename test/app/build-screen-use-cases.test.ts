/**
 * Issue 30's use cases without a browser: the page size a detected source is proposed, the
 * header scan before a build, the skipped-samples report read back, and the build list with
 * the runs database's builds (what the Export screen's "Include its build" needs after a restart).
 */
import { mkdtempSync, rmSync, writeFileSync, cpSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '../../core/api/constants.js';
import type { BuildHistoryEntry } from '../../core/api/contract.js';
import type { BuildRecord } from '../../core/api/runs-model.js';
import { buildList } from '../../core/app/build-list.js';
import { buildSkips } from '../../core/app/build-skips.js';
import { scanHeaders } from '../../core/app/header-scan.js';
import { proposePageSize } from '../../core/app/page-size.js';
import { openSource } from '../../core/sources/open-source.js';
import { ROOT } from '../e2e/e2e-helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'beton-s30-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const MiB = 2 ** 20;

describe('issue 30 use cases', () => {
  it('a small table is proposed FFCV writer-minimum pages; a large one and image sources keep the default', () => {
    expect(proposePageSize('table', 16 * 1024)).toMatchObject({ bytes: PAGE_SIZE.minWriter });
    expect(proposePageSize('table', 16 * 1024)!.why).toMatch(/^2 MiB pages for a table of 16 KiB/);
    expect(proposePageSize('table', 20 * MiB)).toMatchObject({ bytes: 4 * MiB });
    expect(proposePageSize('table', 500 * MiB)).toBeUndefined();
    expect(proposePageSize('image_folder', 16 * 1024)).toBeUndefined();
    expect(proposePageSize('table', null)).toBeUndefined();
  });

  it('the header scan reads every file of a folder and names the unreadable ones', async () => {
    const root = join(tmp, 'imgs');
    mkdirSync(root);
    cpSync(join(ROOT, 'assets/sample-images/circles'), join(root, 'circles'), { recursive: true });
    writeFileSync(join(root, 'circles', 'zz.jpg'), '<html>error</html>');
    const source = await openSource({ type: 'image_folder', path: root }, tmp);
    const fields = await source.detectSchema();
    const scan = (await scanHeaders(source, fields, { start: 0, end: source.length }))!;
    expect(scan.checked).toBe(13);
    expect(scan.unreadableCount).toBe(1);
    expect(scan.unreadable[0]).toMatchObject({ source: 'circles/zz.jpg' });
    expect(scan.unreadable[0]!.reason).toMatch(/HTML page/);
  });

  it("the build's skipped-samples report is read back only for the file it names", () => {
    const out = join(tmp, 'x.beton');
    writeFileSync(
      `${out}.skipped.json`,
      JSON.stringify({ output: out, written: 10, skipped: [{ index: 3, path: 'a/b.jpg', field: 'image', reason: 'bad' }] }),
    );
    expect(buildSkips(out, 10)).toEqual({
      reportPath: `${out}.skipped.json`,
      count: 1,
      items: [{ index: 3, path: 'a/b.jpg', reason: 'bad' }],
    });
    expect(buildSkips(out, 11)).toBeNull();
    expect(buildSkips(join(tmp, 'none.beton'), 10)).toBeNull();
  });

  it('the build list adds the recorded builds this host does not hold, once', () => {
    const report = { path: '/d/a.beton', elapsedMs: 1000 } as BuildRecord['report'];
    const recorded: BuildRecord[] = [
      {
        id: 7,
        datasetId: 1,
        datasetPath: '/d/a.beton',
        config: { source: { type: 'image_folder', path: '/d/src' }, output: '/d/a.beton' },
        report,
        createdAt: '2026-01-01T00:00:10.000Z',
      },
      { id: 8, datasetId: 1, datasetPath: '/d/a.beton', config: { junk: true }, report, createdAt: '2026-01-01T00:00:20.000Z' },
    ];
    const listed = buildList([], () => recorded);
    expect(listed.map((e) => e.jobId)).toEqual(['db-7']);
    expect(listed[0]).toMatchObject({ status: 'ok', finishedAt: Date.parse('2026-01-01T00:00:10.000Z') });
    const own = { ...listed[0]!, jobId: 'job-1' } as BuildHistoryEntry;
    expect(buildList([own], () => recorded).map((e) => e.jobId)).toEqual(['job-1']);
    expect(
      buildList([own], () => {
        throw new Error('locked');
      }),
    ).toEqual([own]);
  });
});
