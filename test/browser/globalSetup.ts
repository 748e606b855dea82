import { mkdirSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { ARTIFACTS, startService } from "./service";

/**
 * One `npm start` for every file of the service project (browser pages and the docs' examples): a
 * fresh state is seeded once, not once per file. Files share it as a user shares one running copy.
 */
export default async function setup(project: TestProject) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const { stop, ...address } = await startService({ pagesFromOneAddress: true });
  project.provide("service", address);
  return stop;
}
