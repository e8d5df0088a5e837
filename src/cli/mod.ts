/** Entry of the command line; filled in by the walking skeleton. */
export function runCli(_argv: string[]): Promise<number> {
  return Promise.resolve(0);
}
