/**
 * Imported (first) by sh_syntax.ts only. mvdan-sh is Go compiled to JavaScript
 * (GopherJS); its runtime start-up reads `Object.keys(process.env)`, which under a
 * narrow `--allow-env` throws NotCapable and would make the module unloadable. The
 * parser never needs the environment, so `process` is hidden while the module
 * evaluates and put back right after (see `restoreProcess`).
 */
const descriptor = Object.getOwnPropertyDescriptor(globalThis, "process");
if (descriptor?.configurable) {
  Object.defineProperty(globalThis, "process", {
    value: undefined,
    configurable: true,
    writable: true,
  });
}

export function restoreProcess(): void {
  if (descriptor?.configurable) Object.defineProperty(globalThis, "process", descriptor);
}
