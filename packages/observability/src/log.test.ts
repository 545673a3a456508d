import { describe, expect, it, vi } from 'vitest';
import { childOnFirstLine, createLogger } from './log.ts';
import { redactText } from './redact.ts';

function logged(write: (log: ReturnType<typeof createLogger>) => void): string {
  const lines: string[] = [];
  write(createLogger('test', (line) => lines.push(line)));
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

describe('redaction by field', () => {
  it('censors known fields at any of the first three levels, whatever their value', () => {
    const line = logged((log) =>
      log.info(
        {
          password: 'hunter2',
          request: { headers: { authorization: 'opaque' }, securityCode: '837' },
          card: { cardNumber: 'not-a-number-shape' },
          mandate: { iban: 'whatever' },
        },
        'fields',
      ),
    );
    for (const value of ['hunter2', 'opaque', '837', 'not-a-number-shape', 'whatever']) {
      expect(line).not.toContain(value);
    }
    expect(JSON.parse(line)).toMatchObject({ password: '[redacted]', card: { cardNumber: '[redacted]' } });
  });
});

describe('redaction by pattern', () => {
  it('catches a card number, an IBAN, a credential, a webhook secret and an Authorization value anywhere', () => {
    const line = logged((log) =>
      log.error(
        {
          note: 'pan 4263 9826 4026 9299, iban DE89 3704 0044 0532 0130 00',
          error: new Error('caller pwc_12_AbCdEfGh-ij refused; whsec_c2VjcmV0 leaked; Basic dXNlcjpwYXNz'),
        },
        'card 4263982640269299 declined',
      ),
    );
    for (const value of ['4263', 'DE89', 'AbCdEfGh', 'c2VjcmV0', 'dXNlcjpwYXNz'])
      expect(line).not.toContain(value);
    expect(JSON.parse(line)).toMatchObject({
      level: 'error',
      service: 'test',
      message: 'card [redacted] declined',
    });
  });

  it('leaves numbers that fail the checks, and ordinary text, as they are', () => {
    expect(redactText('order 4263982640269298 at 2026-11-24T21:00:00.000Z took 1234567 ms')).toBe(
      'order 4263982640269298 at 2026-11-24T21:00:00.000Z took 1234567 ms',
    );
    expect(redactText('DE00370400440532013000 is no IBAN')).toBe('DE00370400440532013000 is no IBAN');
  });
});

describe('a child made on its first line', () => {
  it('writes as the child would, bindings and redaction included, and is made once', () => {
    const lines: string[] = [];
    const parent = createLogger('test', (line) => lines.push(line), 'info');
    const made = vi.spyOn(parent, 'child');
    const log = childOnFirstLine(parent, { requestId: 'req-1' });
    log.debug({ password: 'hunter2' }, 'not written');
    expect(log.isLevelEnabled('debug')).toBe(false);
    expect(made).toHaveBeenCalledTimes(1); // asking the child anything but a level's method makes it
    log.info({ password: 'hunter2' }, 'first');
    log.warn('second');
    expect(made).toHaveBeenCalledTimes(1);
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { requestId: 'req-1', password: '[redacted]', message: 'first', level: 'info' },
      { requestId: 'req-1', message: 'second', level: 'warn' },
    ]);
  });

  it('makes no child while it writes nothing', () => {
    const lines: string[] = [];
    const parent = createLogger('test', (line) => lines.push(line), 'info');
    const made = vi.spyOn(parent, 'child');
    const log = childOnFirstLine(parent, { requestId: 'req-2' });
    log.debug('not written');
    log.trace('nor this');
    expect(made).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });
});
