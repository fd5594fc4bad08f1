// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../renderer/src/App.js';
import { CodeBlock } from '../../renderer/src/components/CodeBlock.js';
import { ErrorBanner } from '../../renderer/src/components/States.js';
import { setTransport } from '../../renderer/src/lib/api.js';
import { BuildScreen } from '../../renderer/src/screens/BuildScreen.js';
import { DatasetScreen } from '../../renderer/src/screens/DatasetScreen.js';
import { ProfileScreen } from '../../renderer/src/screens/ProfileScreen.js';
import { RunsScreen } from '../../renderer/src/screens/RunsScreen.js';
import { SourcesScreen } from '../../renderer/src/screens/SourcesScreen.js';
import { useSourcesStore } from '../../renderer/src/stores/sources.js';
import { failWith, fakeTransport, resetStores, tick } from './helpers.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

beforeEach(resetStores);
afterEach(() => {
  cleanup();
  setTransport(null);
});

const flush = async (): Promise<void> => {
  await act(async () => {
    await tick(20);
  });
};

describe('empty states', () => {
  it('Build without a job says so and offers the way to start one', () => {
    fakeTransport({});
    render(<BuildScreen />);
    expect(screen.getByTestId('build-empty').textContent).toMatch(/No build yet/);
    expect(screen.getByRole('button', { name: 'Choose a source' })).toBeTruthy();
  });

  it('Runs with an empty database shows a designed empty state', async () => {
    fakeTransport({ 'runs.list': () => [] });
    render(<RunsScreen />);
    await flush();
    expect(screen.getByTestId('runs-empty').textContent).toMatch(/No runs yet/);
  });

  it('Profile before any run explains what a sweep does', () => {
    fakeTransport({});
    render(<ProfileScreen />);
    expect(screen.getByText('No profile running')).toBeTruthy();
    // No file yet: the start button is disabled and the problem is named inline.
    expect((screen.getByTestId('profile-start') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getAllByTestId('validation-msg').map((e) => e.textContent)).toContain('Choose a .beton file to profile.');
  });
});

describe('error states', () => {
  it('Runs shows the host error with its code and retries', async () => {
    let fail = true;
    fakeTransport({ 'runs.list': () => (fail ? failWith('FAILED', 'database is locked') : []) });
    render(<RunsScreen />);
    await flush();
    const banner = screen.getByRole('alert');
    expect(banner.getAttribute('data-code')).toBe('FAILED');
    expect(banner.textContent).toMatch(/database is locked/);
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await flush();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByTestId('runs-empty')).toBeTruthy();
  });

  it('Dataset shows a refused path as FORBIDDEN with a hint', async () => {
    fakeTransport({ 'datasets.inspect': (p) => failWith('FORBIDDEN', `${String(p.path)} is outside the folders this server may open`) });
    render(<DatasetScreen />);
    fireEvent.change(screen.getByTestId('dataset-path'), { target: { value: '/etc/passwd' } });
    fireEvent.click(screen.getByTestId('dataset-open'));
    await flush();
    const err = screen.getByTestId('dataset-error');
    expect(err.getAttribute('data-code')).toBe('FORBIDDEN');
    expect(err.textContent).toMatch(/only the folders it was started with/);
  });

  it('ErrorBanner renders code, message and hint', () => {
    render(<ErrorBanner error={{ code: 'NOT_FOUND', message: '/x.beton does not exist' }} />);
    expect(screen.getByRole('alert').textContent).toMatch(/NOT_FOUND.*does not exist.*moved or been deleted/s);
  });

  it('the app asks for the token when the server says UNAUTHORIZED', async () => {
    fakeTransport({ 'env.info': () => failWith('UNAUTHORIZED', 'missing or wrong token') });
    render(<App />);
    await flush();
    expect(screen.getByTestId('auth-required').textContent).toMatch(/Access token needed/);
  });
});

describe('Sources', () => {
  it('shows the detected schema and inline validation that blocks the build', async () => {
    fakeTransport({
      'sources.detect': (p) => ({
        source: { type: 'image_folder', path: p.path },
        fields: [
          {
            name: 'image',
            type: 'rgb_image',
            writeMode: 'raw',
            maxResolution: null,
            smartThreshold: null,
            jpegQuality: 90,
            compressProbability: 0.5,
            passThrough: false,
          },
          { name: 'label', type: 'int' },
        ],
        length: 48,
      }),
    });
    render(<SourcesScreen />);
    fireEvent.change(screen.getByTestId('source-path'), { target: { value: '/d/images' } });
    fireEvent.click(screen.getByTestId('detect-button'));
    await flush();
    expect(screen.getByTestId('field-row-image')).toBeTruthy();
    expect(screen.getByTestId('source-length').textContent).toBe('48 samples');
    expect((screen.getByTestId('output-input') as HTMLInputElement).value).toBe('/d/images.beton');
    const build = screen.getByTestId('build-button') as HTMLButtonElement;
    expect(build.disabled).toBe(false);
    fireEvent.change(screen.getByTestId('field-0-jpegQuality'), { target: { value: '150' } });
    fireEvent.change(screen.getByTestId('pagesize-input'), { target: { value: '3' } });
    expect(screen.getAllByTestId('validation-msg').map((e) => e.textContent)).toEqual(
      expect.arrayContaining(['JPEG quality: 1 to 100.', expect.stringMatching(/power of two/)]),
    );
    expect(build.disabled).toBe(true);
    expect(screen.getByTestId('form-status').textContent).toBe('2 problems to fix before building');
    expect(useSourcesStore.getState().form?.fields[0]?.jpegQuality).toBe('150');
  });
});

describe('CodeBlock', () => {
  it('renders highlighted text safely (as text, not HTML)', () => {
    const code = 'loader = Loader("<img src=x onerror=alert(1)>")  # hi\n';
    const { container } = render(<CodeBlock text={code} language="python" />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('.tok-string')?.textContent).toBe('"<img src=x onerror=alert(1)>"');
    expect(container.querySelector('.tok-comment')?.textContent).toBe('# hi');
    expect(screen.getByTestId('code-block').textContent).toContain('Loader(');
  });
});
