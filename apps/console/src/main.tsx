import './trusted-types.ts'; // first: before any module may write to an HTML sink
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api.ts';
import { router } from './routes.tsx';
import { sessionKey } from './session.tsx';
import './styles.css';

/** Any answer that the session is gone (idle timeout, sign-out elsewhere) takes the console to sign-in. */
const onError = (error: Error) => {
  if (error instanceof ApiError && error.status === 401 && queryClient.getQueryData(sessionKey)) {
    sessionStorage.setItem('paywire-console-ended', 'yes');
    queryClient.setQueryData(sessionKey, null);
  }
};

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
}
