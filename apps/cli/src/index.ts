export * from "./columns";
export * from "./exit-codes";
export * from "./format";
export * from "./run";
