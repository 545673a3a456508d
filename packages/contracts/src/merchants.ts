import { z } from 'zod';

export const credentialsInput = z.object({
  username: z.string().min(1).max(100),
  password: z.string().min(1).max(200),
});

export type Credentials = z.input<typeof credentialsInput>;
