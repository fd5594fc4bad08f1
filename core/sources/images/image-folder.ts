import { extname, join, relative } from 'node:path';
import { BetonEncodeError } from '../../format/errors.js';
import { classFolderNames, walkFiles } from '../common/folder-walk.js';
import { IntField } from '../../fields/int-field.js';
import { RGBImageField, type RGBImageFieldOptions } from '../../fields/rgb-image-field.js';
import type { NamedField } from '../../fields/schema.js';
import { IMAGE_EXTENSIONS } from '../common/image-extensions.js';
import type { ReadGuard } from '../common/read-guard.js';

export interface ImageFolderItem {
  path: string;
  label: number;
}

// A type alias (not an interface) so it is assignable to the writer's Sample record.
export type ImageFolderSample = {
  image: { path: string };
  label: number;
};

/**
 * `root/<class>/<image>`: classes sorted by name get labels 0..K-1 and files are listed as
 * torchvision's ImageFolder does (walk each class folder, directories in sorted path
 * order, files sorted), so labels and order match what PyTorch users already have.
 * Symlinked folders are followed once (a symlink loop is skipped, not followed forever).
 */
export class ImageFolderSource implements Iterable<ImageFolderSample> {
  readonly classes: string[];
  readonly items: ImageFolderItem[];

  /** `guard` (beton serve) refuses class folders that lead outside the served folders. */
  constructor(
    readonly root: string,
    guard?: ReadGuard,
  ) {
    let classes;
    try {
      classes = classFolderNames(root, guard);
    } catch (e) {
      // A link the guard refused keeps its own error; a folder that cannot be read gets this one.
      if (!(e as NodeJS.ErrnoException).syscall) throw e;
      throw new BetonEncodeError('BAD_OPTIONS', `cannot read image folder ${root}: ${(e as Error).message}`, { source: root });
    }
    this.classes = classes;
    if (this.classes.length === 0) {
      throw new BetonEncodeError(
        'BAD_OPTIONS',
        `${root} has no class folders; expected root/<class>/<image> (as torchvision's ImageFolder)`,
        { source: root },
      );
    }
    this.items = [];
    this.classes.forEach((cls, label) => {
      for (const path of walkFiles(join(root, cls), (n) => IMAGE_EXTENSIONS.includes(extname(n).toLowerCase()), guard))
        this.items.push({ path, label });
    });
    if (this.items.length === 0) {
      throw new BetonEncodeError('BAD_OPTIONS', `${root} has no images with extensions ${IMAGE_EXTENSIONS.join(' ')}`, { source: root });
    }
  }

  get length(): number {
    return this.items.length;
  }

  /** The default schema: `image` (RGBImageField with the given options) and `label` (IntField). */
  schema(image: RGBImageFieldOptions = {}): NamedField[] {
    return [
      { name: 'image', field: new RGBImageField(image) },
      { name: 'label', field: new IntField() },
    ];
  }

  relativePath(item: ImageFolderItem): string {
    return relative(this.root, item.path);
  }

  *[Symbol.iterator](): Iterator<ImageFolderSample> {
    for (const it of this.items) yield { image: { path: it.path }, label: it.label };
  }
}
