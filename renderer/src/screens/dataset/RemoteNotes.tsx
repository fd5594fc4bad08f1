import { InlineMarkdown } from '../../components/InlineMarkdown.js';
import type { ApiError } from '../../lib/api.js';
import { allowPrefixFor } from '../../lib/remote-url.js';

/**
 * A URL the server refused (FORBIDDEN: outside its --allow-remote prefixes, or none given):
 * one line saying how to allow it, the server's own words in the tooltip. The generic
 * FORBIDDEN hint (folders the server was started with) would point at the wrong setting.
 */
export function RemoteRefused({ url, error }: { url: string; error: ApiError }) {
  return (
    <div className="banner banner-error" role="alert" data-testid="dataset-url-refused" data-code={error.code} title={error.message}>
      <div className="banner-text">
        <InlineMarkdown
          text={`This server may not open ${url}: to allow it, restart it with \`beton serve FOLDER --allow-remote ${allowPrefixFor(url)}\`.`}
        />
      </div>
    </div>
  );
}

/** In place of the Health panel for a URL: the check reads every byte and keeps its result beside a local file. */
export function RemoteHealthNote({ url }: { url: string }) {
  return (
    <section className="card" data-testid="health-remote">
      <header className="card-head">
        <h3>Health</h3>
      </header>
      <p className="muted">
        <InlineMarkdown
          text={`The health check runs on local files only (it reads every byte and keeps its result beside the file). To check this dataset, copy it with \`beton cp ${url} FILE\` and open the copy.`}
        />
      </p>
    </section>
  );
}
