/**
 * Deno compiles its fetch code (Request, Headers, bodies, the HTTP client) at a
 * process's first fetch: 12–28 ms of the main thread on 2 cores, measured in bare
 * scripts, which the first model request would pay. A fetch of a `data:` URL does the
 * same work without the network or any Deno permission, so a run can do it while the
 * thread waits on something else (the OS jail's probe).
 */
export async function warmHttp(): Promise<void> {
  try {
    await (await fetch("data:,")).arrayBuffer();
  } catch {
    // only a head start: the model request does the work itself
  }
}
