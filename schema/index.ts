export * from "./accounts";
export * from "./aircraft";
export * from "./airspace";
export * from "./deeplink";
export * from "./flights";
export * from "./pilots";
export * from "./telemetry";
export * from "./webhooks";
