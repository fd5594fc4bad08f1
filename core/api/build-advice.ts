/**
 * What `builds.advise` / `beton build --advise` answers before a build: estimates from
 * encoding a sample of the source with the chosen settings (docs/build-advice.md). Types only.
 */

export interface PageSizeOption {
  pageSize: number;
  /** Estimated file size with this page size (header region and last page padded, as the writer does). */
  fileBytes: number;
  pages: number;
  /** The config's page size. */
  chosen: boolean;
  /** The one the advice suggests (at most one row). */
  suggested: boolean;
}

export interface QualityVariant {
  /** "as configured", "JPEG q75", "raw". */
  label: string;
  mode: 'raw' | 'jpg';
  quality: number | null;
  /** Bytes this sample's image would take in the file. */
  bytes: number;
  /** What is shown: the stored JPEG itself when it is small, else a 1:1 crop of its middle. */
  preview: { mime: 'image/jpeg' | 'image/png'; base64: string; width: number; height: number; crop: boolean } | null;
  /** The build's own setting for this image. */
  chosen: boolean;
}

export interface QualityPreviewItem {
  index: number;
  source: string | null;
  /** Stored size (after max resolution). */
  width: number;
  height: number;
  variants: QualityVariant[];
}

export interface BuildAdvice {
  /** Source items the estimates come from, and how they were picked. */
  sampled: number;
  picked: 'random' | 'first';
  seed: number;
  /** Items the build would write (after range/shard); null when the source cannot say cheaply. */
  items: number | null;
  /** Sampled items that failed to encode (with the first reason): the build would fail or skip them. */
  failed: number;
  firstFailure: string | null;
  /**
   * Every listed source image's header, read before saying "ready" (image folders and lists;
   * null for other sources): how many were checked of how many, and the ones the build would
   * stop at (the first few named, with why).
   */
  headers?: {
    checked: number;
    total: number;
    unreadableCount: number;
    unreadable: Array<{ index: number; source: string; reason: string }>;
  } | null;
  estimate: {
    heapBytesPerSample: number;
    largestSampleBytes: number;
    fileBytes: number | null;
    /** One thread, this machine, after a warm-up item; the build's I/O is not in it. */
    encodeMsPerSample: number;
    workers: number;
    buildSeconds: number | null;
    /** How these numbers were made, in a sentence (shown beside them). */
    note: string;
  };
  pageSizes: PageSizeOption[];
  pageSizeAdvice: string | null;
  /** JPEG quality / smart threshold preview of the first image field, on a few sampled items. */
  quality: {
    field: string;
    smartThreshold: number | null;
    writeMode: string;
    items: QualityPreviewItem[];
    smart: { jpg: number; raw: number } | null;
  } | null;
  /** Stored image sizes in the sample against the loader's crop. */
  crop: {
    loaderSize: number;
    maxResolution: number | null;
    minSide: number;
    maxSide: number;
    smallerThanCrop: number;
    warning: string | null;
  } | null;
  warnings: string[];
}
