import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * A spooled batch: `<ms>-<sequence>-<records>.batch` (packed; `.json` from older relays), so its size
 * is known without reading it.
 */
export interface SpoolFile {
  name: string;
  records: number;
  bytes: number;
}

const FILE = /^\d{15}-\d{6}-(\d+)\.(?:batch|json)$/;

/**
 * Batches the worker could not take yet, one file each, written atomically (temporary name,
 * then rename) so a crash never leaves half a batch. Oldest first; bounded in bytes.
 */
export class Spool {
  private readonly files: SpoolFile[] = [];
  private readonly claimed = new Set<string>();
  private sequence = 0;
  private totalBytes = 0;
  private totalRecords = 0;

  constructor(
    readonly dir: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true });
    for (const name of readdirSync(dir).sort()) {
      const match = FILE.exec(name);
      if (match) this.track({ name, records: Number(match[1]), bytes: statSync(path.join(dir, name)).size });
      else if (name.endsWith(".tmp")) rmSync(path.join(dir, name), { force: true });
    }
  }

  get batches(): number {
    return this.files.length;
  }

  get records(): number {
    return this.totalRecords;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** Writes a batch as the forwarder holds it; false when the spool is full and it was not written. */
  async write(text: string | Uint8Array, records: number): Promise<boolean> {
    const file = this.prepare(text, records);
    if (!file) return false;
    const target = path.join(this.dir, file.name);
    await writeFile(`${target}.tmp`, text);
    await rename(`${target}.tmp`, target);
    this.track(file);
    return true;
  }

  /** The same, blocking: for the last moments before the process exits. */
  writeSync(text: string | Uint8Array, records: number): boolean {
    const file = this.prepare(text, records);
    if (!file) return false;
    const target = path.join(this.dir, file.name);
    writeFileSync(`${target}.tmp`, text);
    renameSync(`${target}.tmp`, target);
    this.track(file);
    return true;
  }

  /** The oldest batch nobody is sending, claimed until it is removed or released. */
  claim(): SpoolFile | undefined {
    const file = this.files.find((f) => !this.claimed.has(f.name));
    if (file) this.claimed.add(file.name);
    return file;
  }

  release(file: SpoolFile): void {
    this.claimed.delete(file.name);
  }

  /** A batch's bytes as written. */
  read(file: SpoolFile): Promise<Buffer> {
    return readFile(path.join(this.dir, file.name));
  }

  /** Removes a batch the worker has stored. */
  async remove(file: SpoolFile): Promise<void> {
    await rm(path.join(this.dir, file.name), { force: true });
    this.untrack(file);
  }

  /** Sets aside a batch that cannot be read or that the worker refuses, for an operator to inspect. */
  async quarantine(file: SpoolFile): Promise<void> {
    await rename(path.join(this.dir, file.name), path.join(this.dir, `${file.name}.rejected`));
    this.untrack(file);
  }

  private prepare(text: string | Uint8Array, records: number): SpoolFile | undefined {
    const bytes = Buffer.byteLength(text);
    if (this.totalBytes + bytes > this.maxBytes) return undefined;
    const sequence = String(this.sequence++ % 1_000_000).padStart(6, "0");
    const name = `${String(Date.now()).padStart(15, "0")}-${sequence}-${records}.batch`;
    return { name, records, bytes };
  }

  private track(file: SpoolFile): void {
    this.files.push(file);
    this.totalBytes += file.bytes;
    this.totalRecords += file.records;
  }

  private untrack(file: SpoolFile): void {
    this.claimed.delete(file.name);
    const i = this.files.indexOf(file);
    if (i < 0) return;
    this.files.splice(i, 1);
    this.totalBytes -= file.bytes;
    this.totalRecords -= file.records;
  }
}
