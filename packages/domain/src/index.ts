export * from "./currency";
export * from "./entities";
export * from "./fixture";
export * from "./pagination";
export * from "./scopes";
export * from "./timestamp";
export * from "./wire-schemas";
