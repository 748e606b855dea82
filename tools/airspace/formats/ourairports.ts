import type { AirspaceRecord } from "../dataset";
import { airportRecord } from "./airports";
import { count, type Parsed } from "./source";

/** OurAirports `airports.csv` (https://ourairports.com/data/): airports and heliports; closed ones skipped. */
export function parseOurAirports(text: string): Parsed {
  const rows = parseCsv(text);
  const header = rows.shift();
  if (!header) throw new Error("the file is empty");
  const column = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`not an OurAirports airports.csv: no "${name}" column`);
    return i;
  };
  const at = {
    ident: column("ident"),
    type: column("type"),
    name: column("name"),
    latitude: column("latitude_deg"),
    longitude: column("longitude_deg"),
    elevation: column("elevation_ft"),
    municipality: column("municipality"),
    gps: column("gps_code"),
    iata: column("iata_code"),
    local: column("local_code"),
    link: column("home_link"),
  };
  const features: AirspaceRecord[] = [];
  const skipped = new Map<string, number>();
  for (const row of rows) {
    if (row.length === 1 && row[0] === "") continue;
    const value = (i: number) => row[i]?.trim() || null;
    const record = airportRecord(
      {
        ident: value(at.ident) ?? "",
        type: value(at.type) ?? "",
        name: value(at.name) ?? "",
        latitude: Number(value(at.latitude)),
        longitude: Number(value(at.longitude)),
        elevationFt: value(at.elevation) === null ? null : Number(value(at.elevation)),
        iata: value(at.iata),
        icao: value(at.gps),
        localCode: value(at.local),
        city: value(at.municipality),
        url: value(at.link),
      },
      "ourairports",
    );
    if (record?.sourceId) features.push(record);
    else count(skipped, `not an open airport or heliport (${value(at.type) ?? "no type"})`);
  }
  return { features, facilityMaps: [], skipped };
}

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
