import { InlineMarkdown } from './InlineMarkdown.js';
import type { ApiError } from '../lib/api.js';
import { allowPrefixFor, isRemoteUrl } from '../lib/remote-url.js';
import { ErrorBanner } from './States.js';

/**
 * A URL the server refused (FORBIDDEN: outside its --allow-remote prefixes, or none given):
 * one line saying how to allow it, the server's own words in the tooltip. The generic
 * FORBIDDEN hint (folders the server was started with) would point at the wrong setting.
 */
export function RemoteRefused({ url, error, testId = 'dataset-url-refused' }: { url: string; error: ApiError; testId?: string }) {
  return (
    <div className="banner banner-error" role="alert" data-testid={testId} data-code={error.code} title={error.message}>
      <div className="banner-text">
        <InlineMarkdown
          text={`This server may not open ${url}: to allow it, restart it with \`beton serve FOLDER --allow-remote ${allowPrefixFor(url)}\`.`}
        />
      </div>
    </div>
  );
}

/**
 * The error of a request about `file` (a path or a URL, as the Profile sweep and Export take):
 * a refused URL as RemoteRefused, anything else as the usual banner.
 */
export function FileErrorBanner({ file, error, title }: { file: string; error: ApiError; title: string }) {
  return error.code === 'FORBIDDEN' && isRemoteUrl(file) ? (
    <RemoteRefused url={file.trim()} error={error} testId="url-refused" />
  ) : (
    <ErrorBanner error={error} title={title} />
  );
}
