/**
 * beton-studio: FFCV-compatible .beton datasets for Node.
 * The public library API; everything else is internal.
 */
export * from './format/errors.js';
// The values a user sets or checks (page sizes); the byte layout's own sizes stay internal.
export { DEFAULT_PAGE_SIZE, MIN_WRITER_PAGE_SIZE, MAX_PAGE_SIZE } from './format/constants.js';
// The contract's lists, bounds and loader defaults (what the CLI and the app accept).
export {
  FIELD_TYPES,
  IMAGE_WRITE_MODES,
  ARRAY_DTYPES,
  JPEG_QUALITY,
  COMPRESS_PROBABILITY,
  PAGE_SIZE,
  ORDER_NAMES,
  LOADER_DEFAULTS,
} from './api/constants.js';
export { parseDType, type DType } from './format/dtype.js';
export * from './fields/index.js';
export {
  DatasetWriter,
  type DatasetWriterOptions,
  type WriteProgress,
  type WriteReport,
  type SampleSource,
} from './writer/dataset-writer.js';
export type { Sample } from './writer/sample.js';
export { Reader, type ReaderOptions, type HeapRef, type DecodedSample } from './reader/reader.js';
export { canonicalSample } from './reader/canonical.js';
export { summarize, type DatasetSummary, type FieldSummary } from './reader/inspect.js';
// Object storage (docs/remote.md): URLs work wherever a path does; these copy and classify.
export { isRemoteUrl, parseRemoteUrl, type RemoteUrl } from './remote/url.js';
export { RemoteError, type RemoteErrorCode } from './remote/errors.js';
export { uploadFile, type UploadOptions } from './remote/s3-upload.js';
export { downloadFile, type DownloadOptions } from './remote/download.js';
export { ImageFolderSource } from './sources/images/image-folder.js';
export { IMAGE_EXTENSIONS } from './sources/common/image-extensions.js';
export { openSource, detectSourceConfig } from './sources/open-source.js';
export { ImageFolderDatasetSource } from './sources/images/image-folder-source.js';
export type { DatasetSource } from './sources/common/source.js';
// Video: a clip field (custom, type 255), ffmpeg-backed sources, clip decoders (docs/video.md).
export * from './fields/video-clip-field.js';
export { VideoDatasetSource, VIDEO_COLUMNS, type VideoSourceOptions, type VideoClip } from './sources/video/video-source.js';
export {
  listVideoFolder,
  readVideoList,
  looksLikeVideoFolder,
  VIDEO_EXTENSIONS,
  type VideoItem,
  type VideoListing,
} from './sources/video/video-folder.js';
export { findFfmpeg, ffmpegAvailable, probeVideo, type FfmpegTools, type VideoInfo } from './sources/video/video-ffmpeg.js';
export { clipGeometry, clipFieldStats, type ClipStats } from './loader/clip-decoders.js';
export { buildDataset, type BuildReport, type BuildOptions } from './app/build.js';
export { mergeDatasets, type MergeOptions, type MergeProgress, type MergeReport } from './writer/merge.js';
export { parseBuildConfig, BuildConfig, type BuildConfigInput, type FieldConfig, type SourceConfig } from './api/build-config.js';
export { skipMarker } from './writer/sample.js';
export { Loader, type LoaderOptions, type LoaderState, type LoaderStats, type PipelineConfig } from './loader/loader.js';
export { Batch, type BatchOutput } from './loader/batch.js';
export { LoaderError, type LoaderErrorCode } from './loader/errors.js';
export * from './pipeline/spec.js';
export type { ElementType, TensorSpec, OutputArray } from './pipeline/dtypes.js';
export type { OrderName, OrderFactory, OrderContext, TraversalOrder } from './loader/orders/index.js';
// The app: its contract (core/api) and the one service implementation both hosts use
// (Electron main over IPC, `beton serve` over HTTP + server-sent events).
export {
  IPC,
  METHODS,
  EVENT_NAMES,
  isMethod,
  parseRequest,
  type ApiError,
  type ApiEvent,
  type Envelope,
  type Method,
  type Params,
  type Results,
  type EventName,
  type Events,
} from './api/contract.js';
export { BetonService, type ServiceOptions } from './services/beton-service.js';
export { startHttpServer, CSP, type HttpServerOptions } from './services/http-server.js';
export * from './runs/index.js';

// Which native addon build (and JPEG library) is in use: docs/install.md.
export { nativeAddonOrigin, nativeDescription } from './native/beton-addon.js';
export type { AddonOrigin } from './native/addon-location.js';
