/** Reading the environment inside Deno's sandbox: a variable we may not read is unset. */
export function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) return undefined;
    throw err;
  }
}
