import { RGB_IMAGE_IDENTITY } from '../../fields/rgb-image-field.js';
import { basename, dirname, relative } from 'node:path';
import { RGBImageFieldConfig, type FieldConfig } from '../../api/build-config.js';
import type { Sample } from '../../writer/sample.js';
import { ImageFolderSource } from './image-folder.js';
import type { ReadGuard } from '../common/read-guard.js';
import type { DatasetSource } from '../common/source.js';
import type { ColumnType, RowRange, TableReader, TableRow } from '../common/table-reader.js';
import { TableSource } from '../tables/table-source.js';

/**
 * An ImageFolder (root/<class>/<image>, torchvision's order and labels) as a
 * DatasetSource. Besides `image` and `label` (the default schema) it offers the columns
 * `path` (relative to the root) and `class` (the class folder's name), so a config can
 * add e.g. `{ "name": "path", "type": "json" }` to keep file names with the samples.
 */
export class ImageFolderDatasetSource implements DatasetSource {
  readonly kind = 'image_folder';
  readonly path: string;
  readonly length: number;
  readonly baseDir: string;
  private readonly table: TableSource;

  constructor(
    readonly folder: ImageFolderSource,
    opts: { readGuard?: ReadGuard } = {},
  ) {
    this.path = folder.root;
    this.baseDir = folder.root;
    this.length = folder.length;
    this.table = new TableSource(new ImageFolderRows(folder), {
      kind: this.kind,
      baseDir: folder.root,
      ...(opts.readGuard ? { readGuard: opts.readGuard } : {}),
    });
  }

  /** `readGuard` (beton serve): folders and images that lead outside the served folders are refused. */
  static open(root: string, opts: { readGuard?: ReadGuard } = {}): ImageFolderDatasetSource {
    return new ImageFolderDatasetSource(new ImageFolderSource(root, opts.readGuard), opts);
  }

  async detectSchema(): Promise<FieldConfig[]> {
    return [RGBImageFieldConfig.parse({ name: 'image', type: RGB_IMAGE_IDENTITY.type }), { name: 'label', type: 'int' }];
  }

  samples(fields: readonly FieldConfig[], range?: { start: number; end: number }): AsyncIterable<Sample> {
    return this.table.samples(fields, range);
  }

  /** Image bytes are counted by the image field as it reads them. */
  sourceBytes(): null {
    return null;
  }

  classNames(): readonly string[] {
    return this.folder.classes;
  }
}

/** The listing as rows: image (absolute path), label, path (relative), class. */
class ImageFolderRows implements TableReader {
  readonly kind = 'image_folder';
  readonly textual = false;
  readonly columns = ['image', 'label', 'path', 'class'];
  readonly declared: ColumnType[] = [{ kind: 'image' }, { kind: 'int' }, { kind: 'string' }, { kind: 'string' }];
  readonly path: string;
  readonly length: number;

  constructor(private readonly folder: ImageFolderSource) {
    this.path = folder.root;
    this.length = folder.length;
  }

  async sample(n: number): Promise<unknown[][]> {
    return this.folder.items.slice(0, n).map((it) => this.values(it.path, it.label));
  }

  async *rows(range: RowRange): AsyncGenerator<TableRow> {
    const end = Math.min(range.end, this.length);
    for (let i = range.start; i < end; i++) {
      const it = this.folder.items[i]!;
      yield { index: i, values: this.values(it.path, it.label) };
    }
  }

  private values(path: string, label: number): unknown[] {
    return [path, label, relative(this.folder.root, path), this.folder.classes[label] ?? basename(dirname(path))];
  }

  sourceBytes(): null {
    return null;
  }
}
