import { describe, expect, it } from 'vitest';
import { RemoteError } from '../../core/remote/errors.js';
import { checkRedirect, checkUrl, processPolicy } from '../../core/remote/url-policy.js';

/** The code checkUrl fails with, or 'ok'. */
const verdict = (url: string, prefixes: string[] | null): string => {
  try {
    checkUrl(url, { prefixes });
    return 'ok';
  } catch (e) {
    if (!(e instanceof RemoteError)) throw e;
    return e.code;
  }
};

describe('url-policy: one check for the CLI and the server', () => {
  const P = ['https://h.example/ok/', 's3://data/sets'];
  it('compares normalised URLs to prefixes by path segment', () => {
    expect(verdict('https://h.example/ok/a.beton', P)).toBe('ok');
    expect(verdict('https://H.EXAMPLE:443/ok/a.beton', P)).toBe('ok');
    expect(verdict('https://h.example/ok/%61.beton', P)).toBe('ok');
    expect(verdict('https://h.example/okx/a.beton', P)).toBe('REMOTE_FORBIDDEN');
    expect(verdict('https://h.example/o%6b/a.beton', P)).toBe('ok');
    expect(verdict('https://h.example:444/ok/a.beton', P)).toBe('REMOTE_FORBIDDEN');
    expect(verdict('http://h.example/ok/a.beton', P)).toBe('REMOTE_BAD_URL');
    expect(verdict('s3://data/sets/a.beton', P)).toBe('ok');
    expect(verdict('s3://data/setsX/a.beton', P)).toBe('REMOTE_FORBIDDEN');
    expect(verdict('s3://data/sets/../x.beton', P)).toBe('REMOTE_BAD_URL');
  });

  it('refuses ambiguous forms whatever the policy (the CLI too)', () => {
    for (const url of [
      'https://h.example/ok/%2e%2e/x',
      'https://h.example/ok/%2E./x',
      'https://h.example/ok/%2fx',
      'https://h.example/ok/%5cx',
      'https://h.example/ok\\..\\x',
      'https://h.example/ok/.\t./x',
      'https://h.example/ok/\x00x',
      'https://u:p@h.example/ok/x',
      'https://h.example/ok/../x',
      'https://h.example/ok/./x',
      'https://h.example/ok/%zz',
      's3://data/a/./b',
      's3://data/a\\b',
    ])
      for (const prefixes of [null, P]) expect(verdict(url, prefixes), JSON.stringify(url)).toBe('REMOTE_BAD_URL');
  });

  it('checks each redirect hop, bounds the count', () => {
    const policy = { prefixes: P };
    expect(checkRedirect('https://h.example/ok/a', '/ok/b', 1, policy).href).toBe('https://h.example/ok/b');
    expect(() => checkRedirect('https://h.example/ok/a', '/secret/b', 1, policy)).toThrow(/outside/);
    expect(() => checkRedirect('https://h.example/ok/a', '../secret/b', 1, policy)).toThrow(/ambiguous/);
    expect(() => checkRedirect('https://h.example/ok/a', 'http://127.0.0.2/ok/b', 1, { prefixes: null })).toThrow(/plain http/);
    expect(() => checkRedirect('https://h.example/ok/a', 'file:///etc/passwd', 1, { prefixes: null })).toThrow(/not http/);
    expect(() => checkRedirect('https://h.example/ok/a', '/ok/b', 6, policy)).toThrow(/more than 5/);
    expect(() => checkRedirect('https://h.example/ok/a', null, 1, policy)).toThrow(/Location/);
  });

  it("beton serve's prefixes reach its threads and children through the environment; an unreadable value allows nothing", () => {
    expect(processPolicy({})).toEqual({ prefixes: null });
    expect(processPolicy({ BETON_REMOTE_PREFIXES: '["s3://a/"]' })).toEqual({ prefixes: ['s3://a/'] });
    expect(processPolicy({ BETON_REMOTE_PREFIXES: '{"x":1}' })).toEqual({ prefixes: [] });
    expect(processPolicy({ BETON_REMOTE_PREFIXES: 'not json' })).toEqual({ prefixes: [] });
  });
});
