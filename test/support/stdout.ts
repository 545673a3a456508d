/**
 * What the process prints to stdout from now until `restore()`, still printed as usual: the real log output
 * of a test file, beside what reaches a stack's collected logs.
 */
export function captureStdout(): { printed: string[]; restore(): void } {
  const printed: string[] = [];
  const originalWrite = process.stdout.write;
  process.stdout.write = function (this: typeof process.stdout, chunk: unknown, ...rest: unknown[]) {
    printed.push(String(chunk));
    return (originalWrite as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof process.stdout.write;
  return {
    printed,
    restore: () => {
      process.stdout.write = originalWrite;
    },
  };
}
