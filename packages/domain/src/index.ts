export * from "./currency";
export * from "./entities";
export * from "./fixture";
export * from "./link-header";
export * from "./list-tag";
export * from "./pagination";
export * from "./timestamp";
export * from "./wire-schemas";
