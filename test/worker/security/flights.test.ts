import { securityMatrix } from "./matrix";
import { FLIGHT_ROUTES } from "./routes";

// Flight plans, flights, telemetry and live views: every credential case against every route (routes.ts).
securityMatrix(FLIGHT_ROUTES);
