export * from "./client";
export * from "./embedded";
export * from "./errors";
export * from "./migrations";
export * from "./token-hash";
export * from "./secret-hash";
