import type { PositionRow } from "./telemetryArchive";

/**
 * A flight's track as files other tools open: CSV (a spreadsheet), GPX 1.1 (GPS and flight-log
 * tools) and KML 2.2 (Google Earth). Pure: the rows are the position archive's
 * (`telemetryArchive.ts`: ISO time, latitude, longitude, meters above mean sea level, meters above
 * ground as the drone reported it, horizontal accuracy in meters).
 */

export const TRACK_FORMATS = {
  csv: { type: "text/csv; charset=utf-8", extension: "csv" },
  gpx: { type: "application/gpx+xml", extension: "gpx" },
  kml: { type: "application/vnd.google-earth.kml+xml", extension: "kml" },
} as const;

export type TrackFormat = keyof typeof TRACK_FORMATS;

export interface TrackMeta {
  flightId: string;
  /** Service name and version, for the files' creator fields. */
  creator: string;
}

export function trackFile(format: TrackFormat, rows: PositionRow[], meta: TrackMeta): string {
  if (format === "csv") return trackCsv(rows);
  if (format === "gpx") return trackGpx(rows, meta);
  return trackKml(rows, meta);
}

const CSV_HEADER = "time_utc,latitude,longitude,altitude_msl_m,altitude_agl_m_reported,horizontal_accuracy_m";

function trackCsv(rows: PositionRow[]): string {
  return `${[CSV_HEADER, ...rows.map((r) => r.join(","))].join("\r\n")}\r\n`;
}

function trackGpx(rows: PositionRow[], meta: TrackMeta): string {
  const points = rows
    .map(
      ([time, lat, lng, msl]) =>
        `<trkpt lat="${lat}" lon="${lng}"><ele>${msl}</ele><time>${time}</time></trkpt>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="${xml(meta.creator)}" xmlns="http://www.topografix.com/GPX/1/1">
<metadata><name>${xml(meta.flightId)}</name>${rows[0] ? `<time>${rows[0][0]}</time>` : ""}</metadata>
<trk><name>${xml(meta.flightId)}</name><trkseg>
${points}
</trkseg></trk>
</gpx>
`;
}

/** KML's altitudes are above mean sea level (`absolute`); its times go in a gx:Track. */
function trackKml(rows: PositionRow[], meta: TrackMeta): string {
  const when = rows.map(([time]) => `<when>${time}</when>`).join("\n");
  const coords = rows.map(([, lat, lng, msl]) => `<gx:coord>${lng} ${lat} ${msl}</gx:coord>`).join("\n");
  const line = rows.map(([, lat, lng, msl]) => `${lng},${lat},${msl}`).join(" ");
  return `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document><name>${xml(meta.flightId)}</name><description>${xml(`Track of ${meta.flightId}, from ${meta.creator}`)}</description>
<Style id="track"><LineStyle><color>ff2f2fd1</color><width>3</width></LineStyle></Style>
<Placemark><name>Track (timed)</name><styleUrl>#track</styleUrl><gx:Track><altitudeMode>absolute</altitudeMode>
${when}
${coords}
</gx:Track></Placemark>
<Placemark><name>Track</name><styleUrl>#track</styleUrl><LineString><altitudeMode>absolute</altitudeMode><coordinates>${line}</coordinates></LineString></Placemark>
</Document>
</kml>
`;
}

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
