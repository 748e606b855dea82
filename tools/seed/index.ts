import { airspaceSeeder } from "./airspace";
import { basemapSeeder } from "./basemap";
import { elevationSeeder } from "./elevation";
import type { Seeder } from "./seeder";

/** Run in order by `npm start` after the migrations; areas register theirs here. */
export const seeders: Seeder[] = [elevationSeeder, airspaceSeeder, basemapSeeder];
