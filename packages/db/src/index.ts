export * from "./circuit-breaker";
export * from "./client";
export * from "./data-dir-lock";
export * from "./embedded";
export * from "./errors";
export * from "./migrations";
export * from "./secret-hash";
export * from "./token-hash";
