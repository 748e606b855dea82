import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take half a minute or more (clean-clone run of 2026-11-29), longest first. Vitest
 * orders a group's files project by project ("node" before "service"), and a clean clone has no
 * durations cached: the docs' examples (about two minutes) then started last and ran alone at the
 * end. Starting the long files first lets the short ones fill the other slots beside them.
 */
const LONG_FILES = [
  "test/docs/examples.test.ts",
  "test/browser/deeplink.test.ts",
  "test/e2e/startSupervision.test.ts",
  "test/tools/airspace.cli.test.ts",
  "test/browser/docs.test.ts",
  "test/e2e/traffic.test.ts",
  "test/tools/airspace.sync.cli.test.ts",
  "test/tools/deeplink-callbacks.test.ts",
  "test/browser/live.test.ts",
  "test/tools/keys.test.ts",
];

/** Vitest's own order (failed first, then longest by its cache), with the long files moved ahead in their group. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONG_FILES.indexOf(path.relative(file.project.config.root, file.moduleId));
      return index < 0 ? LONG_FILES.length : index;
    };
    const group = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    // Array.prototype.sort is stable: files of equal rank keep Vitest's order.
    return sorted.sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}
