import type { Target } from "../lib/target";

/** One step that loads embedded data into local state. Each must be safe to run on every start. */
export interface Seeder {
  name: string;
  /** `detail`: what a user cannot act on (long lists), kept apart from the terminal where given. */
  run(target: Target, log: (message: string) => void, detail?: (message: string) => void): Promise<void>;
}
