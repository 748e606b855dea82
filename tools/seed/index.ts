import type { Target } from "../lib/target";
import { airspaceSeeder } from "./airspace";
import { elevationSeeder } from "./elevation";

/** One step that loads embedded data into local state. Each must be safe to run on every start. */
export interface Seeder {
  name: string;
  run(target: Target, log: (message: string) => void): Promise<void>;
}

/** Run in order by `npm start` after the migrations; areas register theirs here. */
export const seeders: Seeder[] = [elevationSeeder, airspaceSeeder];
