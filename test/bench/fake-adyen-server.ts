import { createInterface } from 'node:readline';
import { startFakeAdyen } from '../support/fake-adyen/index.ts';

/**
 * A fake Adyen (test/support/fake-adyen, every request and answer validated against Adyen's documents) in a
 * process of its own, so a benchmark counts its CPU apart and it takes no time from the load generator.
 * Usage: node test/bench/fake-adyen-server.ts <apiKey> <merchantAccount> <latencyMs> <hmacKeyHex>
 * Prints `listening <url>`. Reads JSON lines on stdin: {"notify":{url,username,password}} sets where its
 * notifications go; {"stats":true} prints `stats {...}`: requests, violations (the first 20) and
 * notifications by outcome since it started. It counts what it recorded every second and empties its lists,
 * so that its memory does not grow with a long run.
 */
const [apiKey, merchantAccount, latency, hmacKeyHex] = process.argv.slice(2);
if (!apiKey || !merchantAccount || !latency || !hmacKeyHex) {
  process.stderr.write('usage: fake-adyen-server.ts <apiKey> <merchantAccount> <latencyMs> <hmacKeyHex>\n');
  process.exit(2);
}
const fake = await startFakeAdyen({ apiKey, merchantAccount, latencyMs: Number(latency), hmacKeyHex });

const counted = {
  requests: 0,
  violations: [] as string[],
  accepted: 0,
  refused: 0,
  statuses: {} as Record<string, number>,
};
/** Moves what the fake recorded into the counts and empties its lists; deliveries still in flight stay. */
function count(): void {
  counted.requests += fake.requests.length;
  fake.requests.length = 0;
  counted.violations.push(...fake.violations.splice(0).slice(0, 20 - counted.violations.length));
  const sent = fake.notifications;
  const pending = [];
  for (const delivery of sent) {
    if (delivery.accepted) counted.accepted++;
    else if (delivery.status === 0 && delivery.body === '') pending.push(delivery);
    else {
      counted.refused++;
      counted.statuses[delivery.status] = (counted.statuses[delivery.status] ?? 0) + 1;
    }
  }
  sent.length = 0;
  sent.push(...pending);
}
setInterval(count, 1000).unref();

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as {
    notify?: { url: string; username: string; password: string };
    stats?: true;
  };
  if (command.notify) fake.notifyTo(command.notify);
  if (command.stats) {
    count();
    process.stdout.write(`stats ${JSON.stringify({ ...counted, pending: fake.notifications.length })}\n`);
  }
});
process.once('SIGTERM', () => {
  void fake.close().finally(() => process.exit(0));
});
process.stdout.write(`listening ${fake.url}\n`);
