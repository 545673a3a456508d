import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, FieldError, Form, Input, Label, TextField } from 'react-aria-components';
import { ApiError, api, rememberCsrfToken } from './api.ts';

export interface Session {
  merchantId: number;
  username: string;
  csrfToken: string;
}

export const sessionKey = ['session'];

/** The signed-in merchant, or null when there is no live session (never signed in, signed out, timed out). */
export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: async () => {
      try {
        const session = await api<Session>('/session');
        rememberCsrfToken(session.csrfToken);
        return session;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function SignIn({ ended }: { ended: boolean }) {
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () =>
      api<{ csrfToken: string }>('/session', { method: 'POST', body: { username, password } }),
    onSuccess: async ({ csrfToken }) => {
      rememberCsrfToken(csrfToken);
      setPassword('');
      await queryClient.resetQueries();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="sign-in" id="main">
      <h1>Paywire console</h1>
      {ended && !signIn.isError && <p role="status">Your session has ended. Sign in again to continue.</p>}
      <Form onSubmit={submit} aria-label="Sign in">
        <TextField value={username} onChange={setUsername} isRequired autoComplete="username" name="username">
          <Label>Username</Label>
          <Input />
          <FieldError />
        </TextField>
        <TextField
          value={password}
          onChange={setPassword}
          isRequired
          type="password"
          autoComplete="current-password"
          name="password"
        >
          <Label>Password</Label>
          <Input />
          <FieldError />
        </TextField>
        {signIn.isError && (
          <p role="alert" className="error">
            {signIn.error instanceof ApiError && signIn.error.status === 401
              ? 'Wrong username or password.'
              : signIn.error.message}
          </p>
        )}
        <Button type="submit" isDisabled={signIn.isPending}>
          Sign in
        </Button>
      </Form>
    </main>
  );
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api('/session', { method: 'DELETE' }),
    onSettled: () => {
      rememberCsrfToken('');
      queryClient.clear();
      queryClient.setQueryData(sessionKey, null);
    },
  });
}
