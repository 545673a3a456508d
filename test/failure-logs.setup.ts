import { beforeEach } from 'vitest';
import { notableLogLines } from './support/failure-logs.ts';

// A failed test prints the warnings and errors its file's services logged (support/failure-logs.ts).
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    const lines = notableLogLines();
    if (lines.length > 0) {
      process.stderr.write(`warnings and errors the test's services logged:\n${lines.join('')}`);
    }
  });
});
