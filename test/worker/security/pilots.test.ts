import { securityMatrix } from "./matrix";
import { PILOT_ROUTES } from "./routes";

// Tokens, keys, pilots and aircraft: every credential case against every route (routes.ts).
securityMatrix(PILOT_ROUTES);
