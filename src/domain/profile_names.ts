/**
 * The built-in agent profiles' names. src/permission defines what each allows; config
 * needs only the names, to tell a project narrowing an existing profile from one
 * defining a new profile (which an untrusted project may not do).
 */
export const BUILTIN_PROFILE_NAMES = ["coder", "readonly", "task"] as const;
export type BuiltinProfileName = typeof BUILTIN_PROFILE_NAMES[number];
