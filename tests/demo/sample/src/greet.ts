/** Greets someone by name. */
export function greet(name: string): string {
  return `Helo, ${name}!`;
}

if (import.meta.main) console.log(greet("world"));
