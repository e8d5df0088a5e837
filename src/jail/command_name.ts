/** The hidden command of a compiled mopac that runs the jail's supervisor (kept tiny: the CLI imports it at start). */
export const SUPERVISOR_COMMAND = "__jail-supervisor";
