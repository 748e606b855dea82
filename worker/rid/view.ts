import { type Checked, checked, problem } from "../domain/problem";
import {
  EARTH_CIRCUMFERENCE_KM,
  NetMaxDisplayAreaDiagonalKm,
  NetMaxNearRealTimeDataPeriodSeconds,
} from "./constants";

/** The box of a `view=lat1,lng1,lat2,lng2` query: the smallest box bounded by the two corners. */
export interface View {
  minLat: number;
  minLng: number;
  maxLat: number;
  maxLng: number;
}

const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in km on the qualifier's sphere (haversine). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = rad(lat2 - lat1);
  const dLng = rad(lng2 - lng1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLng / 2) ** 2;
  const angle = 2 * Math.asin(Math.min(1, Math.sqrt(h)));
  return (angle * EARTH_CIRCUMFERENCE_KM) / (2 * Math.PI);
}

/** The view's diagonal, corner to corner, in km. */
export function diagonalKm(view: View): number {
  return distanceKm(view.minLat, view.minLng, view.maxLat, view.maxLng);
}

export function contains(view: View, lat: number, lng: number): boolean {
  return lat >= view.minLat && lat <= view.maxLat && lng >= view.minLng && lng <= view.maxLng;
}

/** Parses `view`: 400 for anything but four numbers in range; 413 when its diagonal is over 7 km. */
export function parseView(text: string | undefined): Checked<View> {
  if (text === undefined || text.trim() === "") return problem("view", "required: lat1,lng1,lat2,lng2");
  const parts = text.split(",");
  const numbers = parts.map((p) => (p.trim() === "" ? Number.NaN : Number(p)));
  if (numbers.length !== 4 || numbers.some((n) => !Number.isFinite(n)))
    return problem("view", "four comma-separated numbers: lat1,lng1,lat2,lng2");
  const [lat1, lng1, lat2, lng2] = numbers as [number, number, number, number];
  if (Math.abs(lat1) > 90 || Math.abs(lat2) > 90) return problem("view", "latitudes lie in [-90, 90]");
  if (Math.abs(lng1) > 180 || Math.abs(lng2) > 180) return problem("view", "longitudes lie in [-180, 180]");
  const view = {
    minLat: Math.min(lat1, lat2),
    maxLat: Math.max(lat1, lat2),
    minLng: Math.min(lng1, lng2),
    maxLng: Math.max(lng1, lng2),
  };
  const diagonal = diagonalKm(view);
  if (diagonal > NetMaxDisplayAreaDiagonalKm)
    return problem(
      "view",
      `the view's diagonal is ${diagonal.toFixed(2)} km; at most ${NetMaxDisplayAreaDiagonalKm} km`,
      true,
    );
  return checked(view);
}

/** `recent_positions_duration` in seconds: absent means 0; at most NetMaxNearRealTimeDataPeriodSeconds. */
export function parseRecentDuration(text: string | undefined): Checked<number> {
  if (text === undefined || text === "") return checked(0);
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > NetMaxNearRealTimeDataPeriodSeconds)
    return problem("recent_positions_duration", `seconds from 0 to ${NetMaxNearRealTimeDataPeriodSeconds}`);
  return checked(seconds);
}
