import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the facade under /console (apps/facade/src/console/); no inline script or style, so the page runs
// under the hosted fields' Content-Security-Policy.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1500,
  },
});
