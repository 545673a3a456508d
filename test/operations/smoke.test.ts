import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, saleBody } from '../support/http.ts';
import { type Stack, startStack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

it('sells over real HTTP', async () => {
  const reply = await client(stack).post('/transactions', saleBody());
  expect(reply.status).toBe(200);
  expect(reply.body.processingInfo.processingStatus).toBe('success');
});
