// The image's HEALTHCHECK: GET /healthz on this container's port; exit 0 on a 200, else 1.
// Port: the first argument, else PORT, else 8080 (the worker's service passes its WORKER_PORT).
const port = process.argv[2] ?? process.env.PORT ?? '8080';
try {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
