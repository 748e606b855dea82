export * from "./accounts";
export * from "./aircraft";
export * from "./flights";
export * from "./pilots";
