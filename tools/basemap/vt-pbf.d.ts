// vt-pbf ships no types: the one function the basemap builder calls.
declare module "vt-pbf" {
  export function fromGeojsonVt(
    layers: Record<string, { features: unknown[] }>,
    options?: { version?: number; extent?: number },
  ): Uint8Array;
}
