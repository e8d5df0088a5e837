/** Reading the environment inside Deno's sandbox: a variable we may not read is unset. */
export function readEnv(name: string): string | undefined {
  // Asked first rather than caught: a refused Deno.env.get builds an error with a
  // stack, and a bash call reads some fifty names, most of them refused under a
  // narrow --allow-env. Headless runs never prompt, so only "granted" reads.
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name);
}
