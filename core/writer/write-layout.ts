import { open, unlink, type FileHandle } from 'node:fs/promises';
import { ALLOC_ENTRY_SIZE } from '../format/constants.js';
import type { RecordLayout } from '../format/record-layout.js';
import { regions } from '../format/regions.js';
import type { NamedField } from '../fields/schema.js';
import type { OutputFile } from './output-file.js';

type SpillKind = 'meta' | 'pages' | 'alloc';

/**
 * Where a write's metadata table, pages and allocation table go. With a known sample count
 * the data region's start (D0) is known up front: metadata and pages go straight to their
 * final offsets in the output. With an unknown count they go to spill files beside it
 * (`<tmp>.meta`, `<tmp>.pages`) with pointers relative to D0, and `settle` moves them
 * (pointers made absolute) once the count is known. The allocation table always spills,
 * since it follows the pages, and is appended last.
 */
export class WriteLayout {
  readonly spill: boolean;
  /** Absolute D0 when the count is known; 0 while pointers are relative (spill mode). */
  readonly dataStart: number;
  /** Where record 0 goes in `metadataFile()`. */
  readonly metadataStart: number;
  private readonly spilled = new Map<SpillKind, FileHandle>();

  constructor(
    private readonly fh: OutputFile,
    private readonly tmpPath: string,
    private readonly fields: readonly NamedField[],
    private readonly records: RecordLayout,
    private readonly pageSize: number,
    capacity: number | null,
  ) {
    this.spill = capacity === null;
    // D0 is reserved for `capacity` samples; if some are skipped, the gap is zero padding
    // (pointers are absolute, so FFCV reads such a file as any other).
    const reg = regions(fields.length, capacity ?? 0, records.size, pageSize);
    this.dataStart = this.spill ? 0 : reg.dataStart;
    this.metadataStart = this.spill ? 0 : reg.metadata.offset;
  }

  metadataFile(): Promise<OutputFile> {
    return this.spill ? this.spillFile('meta') : Promise.resolve(this.fh);
  }

  pagesFile(): Promise<OutputFile> {
    return this.spill ? this.spillFile('pages') : Promise.resolve(this.fh);
  }

  allocFile(): Promise<FileHandle> {
    return this.spillFile('alloc');
  }

  private async spillFile(kind: SpillKind): Promise<FileHandle> {
    let h = this.spilled.get(kind);
    if (!h) {
      h = await open(`${this.tmpPath}.${kind}`, 'wx+');
      this.spilled.set(kind, h);
    }
    return h;
  }

  /**
   * With `n` samples in `pages` pages written and flushed: the final D0. In spill mode the
   * metadata (pointers made absolute) and the pages are moved to their final offsets first.
   */
  async settle(n: number, pages: number): Promise<number> {
    if (!this.spill) return this.dataStart;
    const reg = regions(this.fields.length, n, this.records.size, this.pageSize);
    await this.relocate(reg.dataStart, reg.metadata.offset, pages, n);
    return reg.dataStart;
  }

  private async relocate(dataStart: number, M0: number, pages: number, n: number): Promise<void> {
    const R = this.records.size;
    const metaSrc = this.spilled.get('meta');
    if (metaSrc && n > 0) {
      const per = Math.max(1, Math.floor((4 << 20) / R));
      const buf = new Uint8Array(per * R);
      const ptrFields = this.fields
        .map((f, i) => ({ p: f.field.pointerOffset, off: this.records.offsets[i]! }))
        .filter((x) => x.p !== null);
      for (let i = 0; i < n; i += per) {
        const count = Math.min(per, n - i);
        await metaSrc.read(buf, 0, count * R, i * R);
        const view = new DataView(buf.buffer);
        for (let r = 0; r < count; r++) {
          for (const { p, off } of ptrFields) {
            const at = r * R + off + p!;
            view.setBigInt64(at, view.getBigInt64(at, true) + BigInt(dataStart), true);
          }
        }
        await this.fh.write(buf, 0, count * R, M0 + i * R);
      }
    }
    const pageSrc = this.spilled.get('pages');
    if (pageSrc && pages > 0) {
      const buf = new Uint8Array(this.pageSize);
      for (let p = 0; p < pages; p++) {
        const { bytesRead } = await pageSrc.read(buf, 0, this.pageSize, p * this.pageSize);
        await this.fh.write(buf, 0, bytesRead, dataStart + p * this.pageSize);
      }
    }
  }

  /** Appends the spilled allocation table (`count` entries) at T, making pointers absolute; returns its bytes. */
  async appendAllocTable(T: number, count: number, dataStart: number): Promise<number> {
    const src = this.spilled.get('alloc');
    const total = count * ALLOC_ENTRY_SIZE;
    if (!src || total === 0) return 0;
    const buf = new Uint8Array(ALLOC_ENTRY_SIZE * 43690);
    for (let done = 0; done < total;) {
      const { bytesRead } = await src.read(buf, 0, Math.min(buf.byteLength, total - done), done);
      const view = new DataView(buf.buffer, 0, bytesRead);
      for (let o = 0; o < bytesRead; o += ALLOC_ENTRY_SIZE)
        view.setBigInt64(o + 8, view.getBigInt64(o + 8, true) + BigInt(dataStart), true);
      await this.fh.write(buf, 0, bytesRead, T + done);
      done += bytesRead;
    }
    return total;
  }

  /** Closes and removes the spill files (on success and on failure). */
  async cleanup(): Promise<void> {
    for (const [kind, h] of this.spilled) {
      await h.close().catch(() => undefined);
      await unlink(`${this.tmpPath}.${kind}`).catch(() => undefined);
    }
    this.spilled.clear();
  }
}
