import type { Target } from "../lib/target";

/** One step that loads embedded data into local state. Each must be safe to run on every start. */
export interface Seeder {
  name: string;
  run(target: Target, log: (message: string) => void): Promise<void>;
}
