import { DomainError } from '@paywire/contracts';
import { describe, expect, it } from 'vitest';
import { evidenceLimitBytes, evidenceMediaType } from './evidence.ts';

const file = (head: number[] | string, size = 64) => {
  const start = typeof head === 'string' ? Buffer.from(head, 'latin1') : Buffer.from(head);
  return Buffer.concat([start, Buffer.alloc(Math.max(0, size - start.length), 0x20)]);
};

const refusal = (content: Buffer, mode: 'live' | 'sandbox') => {
  try {
    evidenceMediaType(content, mode);
  } catch (error) {
    if (error instanceof DomainError) return error.errorName;
    throw error;
  }
  return undefined;
};

describe('evidenceMediaType', () => {
  it('tells each accepted format by its first bytes', () => {
    expect(evidenceMediaType(file('%PDF-1.4'), 'live')).toBe('application/pdf');
    expect(evidenceMediaType(file([0x49, 0x49, 0x2a, 0x00]), 'live')).toBe('image/tiff');
    expect(evidenceMediaType(file([0x4d, 0x4d, 0x00, 0x2a]), 'live')).toBe('image/tiff');
    expect(evidenceMediaType(file([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'live')).toBe(
      'image/png',
    );
    expect(evidenceMediaType(file([0xff, 0xd8, 0xff, 0xdb]), 'live')).toBe('image/jpeg');
  });

  it('refuses other content, a near miss and nothing at all', () => {
    expect(refusal(file('GIF89a'), 'live')).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(refusal(file('%PDF'), 'live')).toBe('UNSUPPORTED_MEDIA_TYPE'); // no dash: not a PDF header
    expect(refusal(file('<html>%PDF-1.4'), 'live')).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(refusal(Buffer.alloc(0), 'live')).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it("applies the mode's size limit, the limit itself allowed", () => {
    for (const mode of ['live', 'sandbox'] as const) {
      const limit = evidenceLimitBytes[mode];
      expect(evidenceMediaType(file('%PDF-1.4', limit), mode)).toBe('application/pdf');
      expect(refusal(file('%PDF-1.4', limit + 1), mode)).toBe('REQUEST_ENTITY_TOO_LARGE');
    }
  });
});
