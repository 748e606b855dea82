import { securityMatrix } from "./matrix";
import { SERVICE_ROUTES } from "./routes";

// Elevation, system status, webhooks and deep links: every credential case against every route (routes.ts).
securityMatrix(SERVICE_ROUTES);
