import { InlineMarkdown } from '../../components/InlineMarkdown.js';

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
