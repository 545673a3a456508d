/**
 * The logs of the services a test file started (stack.ts keeps them in memory), so that a failing test's
 * output carries their warnings and errors (test/failure-logs.setup.ts): a failure only they explain, a
 * facade that could not reach core, say, would otherwise leave no trace in CI's output.
 */
const kept = new Set<string[]>();

/** Keeps `logs` for failures until the returned function is called (when the services stop). */
export function keepForFailures(logs: string[]): () => void {
  kept.add(logs);
  return () => kept.delete(logs);
}

const notable = /"level":"(warn|error|fatal)"/;

/** The last warnings and errors of every kept log, for a failed test's output. */
export function notableLogLines(limit = 40): string[] {
  return [...kept].flatMap((logs) => logs.filter((line) => notable.test(line)).slice(-limit));
}
