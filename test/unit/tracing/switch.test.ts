import { describe, expect, it } from 'vitest';
import { maskSecrets } from '../../../src/text/index.js';
import { tracingWanted } from '../../../src/tracing/switch.js';

describe('tracingWanted', () => {
  it('is off with nothing set, on with --trace or an OTLP endpoint or exporter', () => {
    expect(tracingWanted({}, false)).toBeUndefined();
    expect(tracingWanted({}, true)).toMatchObject({ defaultEndpoint: true, serviceName: 'mcpx' });
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, false)).toMatchObject({
      endpoint: 'http://c:4318/v1/traces',
      defaultEndpoint: false,
    });
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x' }, false)?.endpoint).toBe(
      'http://t/x',
    );
    expect(
      tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'agent' }, false)?.serviceName,
    ).toBe('agent');
  });

  it('stays off when OpenTelemetry is told so, whatever else is set', () => {
    expect(
      tracingWanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }, true),
    ).toBeUndefined();
    expect(
      tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }, true),
    ).toBeUndefined();
  });
});

describe('maskSecrets', () => {
  it('masks credential-named fields, token shapes and Bearer values, deep, and keeps the rest', () => {
    expect(
      maskSecrets(
        {
          query: 'weather',
          apiKey: 'abc',
          nested: [{ password: 'p', note: 'ghp_abcdefghijklmnopqrstuvwxyz' }],
          header: 'Bearer xyz',
          keyFile: '/tmp/k',
        },
        { marker: '***' },
      ),
    ).toEqual({
      query: 'weather',
      apiKey: '***',
      nested: [{ password: '***', note: '***' }],
      header: '***',
      keyFile: '/tmp/k',
    });
  });
});
