import { z } from 'zod';

import { text } from './primitives.ts';

export const credentialsInput = z.object({
  username: text(100),
  password: z.string().min(1).max(200),
});

export type Credentials = z.input<typeof credentialsInput>;
