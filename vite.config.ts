import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig } from 'vite'
import { fileURLToPath } from 'node:url'

export default defineConfig({
  resolve: {
    alias: {
      '~': fileURLToPath(new URL('./app', import.meta.url)),
    },
  },
  plugins: [tailwindcss(), reactRouter()],
  optimizeDeps: {
    include: ['react', 'react-dom', 'react-dom/client', 'react-router', '@conform-to/react', '@conform-to/zod/v4', 'zod'],
  },
  build: {
    assetsInlineLimit: 0,
  },
})
