import { securityMatrix } from "./matrix";
import { AIRSPACE_ROUTES } from "./routes";

// Rules, advisories, status, airspace and weather: every credential case against every route (routes.ts).
securityMatrix(AIRSPACE_ROUTES);
